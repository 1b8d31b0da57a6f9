package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/profiles/schema"
	"github.com/krender/krender/render/contenthash"
	"github.com/krender/krender/render/inject"
	"github.com/krender/krender/render/zones"
)

// committedSchema is the copy editors point at; `krender schema` prints it.
const committedSchema = "../../../profiles/profile.schema.json"

func schemaText(t *testing.T) []byte {
	t.Helper()
	out, errs, code := runIn(t, ".", "schema")
	if code != 0 {
		t.Fatalf("krender schema: exit %d: %s", code, errs)
	}
	return []byte(out)
}

// TestSchemaCommittedCopy keeps profiles/profile.schema.json equal to what
// the Go types give (go test ./cmd/internal/cli -run Schema -update rewrites it).
func TestSchemaCommittedCopy(t *testing.T) {
	got := schemaText(t)
	if *update {
		if err := os.WriteFile(committedSchema, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(committedSchema)
	if err != nil || !bytes.Equal(want, got) {
		t.Fatalf("%s is not what krender schema prints (run go test ./cmd/internal/cli -run Schema -update and review): %v", committedSchema, err)
	}
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaText(t)))
	if err != nil {
		t.Fatal(err)
	}
	if doc.(map[string]any)["$schema"] != schema.Draft {
		t.Fatalf("$schema is %v, want draft-07", doc.(map[string]any)["$schema"])
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("profile.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("profile.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// validate checks one profile file and the files it extends; the error
// names the first that fails. ok is false when a file is not readable YAML
// (the loader's errors, not the schema's).
func validate(sch *jsonschema.Schema, path string) (err error, ok bool) {
	for seen := map[string]bool{}; path != "" && !seen[path]; {
		seen[path] = true
		b, rerr := os.ReadFile(path)
		if rerr != nil {
			return nil, false
		}
		var v any
		if yaml.Unmarshal(b, &v) != nil {
			return nil, false
		}
		j, jerr := json.Marshal(v)
		if jerr != nil {
			return nil, false
		}
		inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(j))
		if err := sch.Validate(inst); err != nil {
			return err, true
		}
		next := ""
		if m, isMap := v.(map[string]any); isMap {
			if e, isStr := m["extends"].(string); isStr && e != "" {
				next = filepath.Join(filepath.Dir(path), e)
			}
		}
		path = next
	}
	return nil, true
}

func TestSchemaValidatesBundledProfiles(t *testing.T) {
	sch := compileSchema(t)
	files, _ := filepath.Glob("../../../profiles/*.yaml")
	if len(files) < 4 {
		t.Fatalf("bundled profiles: %v", files)
	}
	for _, f := range files {
		if err, ok := validate(sch, f); !ok || err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// schemaErrors are the bad-profile golden cases whose profile the schema
// itself rejects: the rest fail on what a schema cannot see (YAML syntax,
// duplicate keys, extends cycles, zone references, yq expressions, value
// types of placeholders).
var schemaErrors = []string{
	"check/kubeversion-invalid",
	"check/unknown-rule",
	"hash/custom-invalid",
	"hash/mode-invalid",
	"inject/bad-expression",  // mode: patch (its yq errors are the loader's)
	"inject/shell-injection", // type: url (its unsafe values are the loader's)
	"render/profile-wrong-type",
	"render/unknown-profile-key", "render/unknown-profile-key-suggest",
	"zones/bad-label",
	"zones/bad-zone-data",
	"zones/unknown-strategy",
	"zones/unknown-suffix",
}

// TestSchemaOnGoldenProfiles: every profile of a golden case that renders
// validates, and the schema rejects exactly the cases in schemaErrors.
func TestSchemaOnGoldenProfiles(t *testing.T) {
	sch := compileSchema(t)
	cases, _ := filepath.Glob("../../../testdata/*/*/args")
	var rejected []string
	for _, argsFile := range cases {
		dir := filepath.Dir(argsFile)
		name := strings.TrimPrefix(filepath.ToSlash(dir), "../../../testdata/")
		raw, _ := os.ReadFile(argsFile)
		args := strings.Fields(string(raw))
		profile := ""
		for i := 0; i+1 < len(args); i++ {
			if args[i] == "-p" {
				profile = filepath.Join(dir, args[i+1])
			}
		}
		stderr, err := os.ReadFile(filepath.Join(dir, "stderr.golden"))
		if profile == "" || err != nil {
			continue
		}
		verr, ok := validate(sch, profile)
		if !ok {
			continue
		}
		if !bytes.HasSuffix(stderr, []byte("exit status 2\n")) {
			if verr != nil {
				t.Errorf("%s renders, but the schema rejects its profile: %v", name, verr)
			}
			continue
		}
		if verr != nil {
			rejected = append(rejected, name)
		}
	}
	sort.Strings(rejected)
	if !reflect.DeepEqual(rejected, schemaErrors) {
		t.Errorf("the schema rejects the profiles of\n  %v\nwant\n  %v", rejected, schemaErrors)
	}
}

// TestSchemaDescribesEveryKey: editors show a description for every key.
func TestSchemaDescribesEveryKey(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(schemaText(t), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	var walk func(path string, s map[string]any)
	walk = func(path string, s map[string]any) {
		if props, ok := s["properties"].(map[string]any); ok {
			for k, v := range props {
				p := v.(map[string]any)
				n++
				if d, _ := p["description"].(string); d == "" {
					t.Errorf("%s.%s has no description", path, k)
				}
				walk(path+"."+k, p)
			}
		}
		for _, key := range []string{"items", "additionalProperties"} {
			if sub, ok := s[key].(map[string]any); ok {
				walk(path+"[]", sub)
			}
		}
	}
	walk("", doc)
	if n < 30 {
		t.Fatalf("only %d keys described", n)
	}
}

// TestSchemaEnumsMatchStages: the enums written in model/profiles/schema.go are
// the values the stages accept.
func TestSchemaEnumsMatchStages(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(schemaText(t), &doc); err != nil {
		t.Fatal(err)
	}
	enum := func(path ...string) []any {
		var s any = doc
		for _, p := range path {
			m := s.(map[string]any)
			switch p {
			case "[]":
				s = m["items"]
			case "*":
				s = m["additionalProperties"]
			default:
				s = m["properties"].(map[string]any)[p]
			}
		}
		return s.(map[string]any)["enum"].([]any)
	}
	for _, c := range []struct {
		got  []any
		want []string
	}{
		{enum("hash", "mode"), []string{contenthash.Suffix, contenthash.Annotation, contenthash.Off}},
		{enum("zoneHosts", "strategy"), []string{zones.Split, zones.Static, zones.Off}},
		{enum("zoneHosts", "suffix"), []string{zones.SuffixLastToken, zones.SuffixZoneLetter, zones.SuffixZone}},
		{enum("inject", "[]", "mode"), []string{inject.ModeMerge, inject.ModeAppend}},
	} {
		var got []string
		for _, v := range c.got {
			got = append(got, v.(string))
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("enum %v, want %v", got, c.want)
		}
	}
}
