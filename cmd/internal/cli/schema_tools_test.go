package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/internal/testing/testtool"
)

// schemaCorpus writes krender schema's output and, as JSON, every profile
// file the schema must accept (the bundled profiles and those of golden
// cases that render, extends chains included) and every golden case's
// chain it must reject (schemaErrors). Instances are JSON so that other
// validators read the values Go's YAML reader gives, as the loader does.
func schemaCorpus(t *testing.T) (dir string, accept []string, reject map[string][]string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "profile.schema.json"), schemaText(t), 0o644); err != nil {
		t.Fatal(err)
	}
	written := map[string]string{}
	chain := func(path string) []string {
		var out []string
		for seen := map[string]bool{}; path != "" && !seen[path]; {
			seen[path] = true
			b, err := os.ReadFile(path)
			var v any
			if err != nil || yaml.Unmarshal(b, &v) != nil {
				return nil
			}
			j, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			name, ok := written[path]
			if !ok {
				name = filepath.Join(dir, fmt.Sprintf("i%03d.json", len(written)))
				written[path] = name
				if err := os.WriteFile(name, j, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out = append(out, name)
			next := ""
			if m, isMap := v.(map[string]any); isMap {
				if e, isStr := m["extends"].(string); isStr && e != "" {
					next = filepath.Join(filepath.Dir(path), e)
				}
			}
			path = next
		}
		return out
	}
	bundled, _ := filepath.Glob("../../../profiles/*.yaml")
	for _, f := range bundled {
		accept = append(accept, chain(f)...)
	}
	rejected := map[string]bool{}
	for _, c := range schemaErrors {
		rejected[c] = true
	}
	reject = map[string][]string{}
	cases, _ := filepath.Glob("../../../testdata/*/*/args")
	for _, argsFile := range cases {
		dir := filepath.Dir(argsFile)
		name := strings.TrimPrefix(filepath.ToSlash(dir), "../../../testdata/")
		raw, _ := os.ReadFile(argsFile)
		args := strings.Fields(string(raw))
		stderr, err := os.ReadFile(filepath.Join(dir, "stderr.golden"))
		for i := 0; i+1 < len(args) && err == nil; i++ {
			if args[i] != "-p" {
				continue
			}
			files := chain(filepath.Join(dir, args[i+1]))
			switch {
			case rejected[name]:
				reject[name] = files
			case !bytes.HasSuffix(stderr, []byte("exit status 2\n")):
				accept = append(accept, files...)
			}
		}
	}
	if len(accept) < 20 || len(reject) != len(schemaErrors) {
		t.Fatalf("%d files to accept, %d of %d cases to reject", len(accept), len(reject), len(schemaErrors))
	}
	return dir, accept, reject
}

// checkVerdicts holds a validator's verdicts (file: valid) to the corpus.
func checkVerdicts(t *testing.T, tool string, valid map[string]bool, accept []string, reject map[string][]string) {
	t.Helper()
	for _, f := range accept {
		if v, ok := valid[f]; !ok || !v {
			t.Errorf("%s rejects %s (or gave no verdict)", tool, f)
		}
	}
	for c, files := range reject {
		bad := false
		for _, f := range files {
			bad = bad || !valid[f]
		}
		if !bad {
			t.Errorf("%s accepts the profile of %s, which krender refuses", tool, c)
		}
	}
}

// TestSchemaAjvStrict: ajv, the validator of most JSON Schema tooling,
// compiles the schema in strict mode (no union types, no unknown formats or
// keywords) and agrees with krender on the corpus. hack/tools.sh installs
// ajv-cli.
func TestSchemaAjvStrict(t *testing.T) {
	ajv := testtool.Find(t, "KRENDER_AJV", []string{"../../../.cache/npm/node_modules/.bin/ajv", "ajv"},
		"the schema must compile under ajv's strict mode (hack/tools.sh installs ajv-cli from npm)")
	dir, accept, reject := schemaCorpus(t)
	schema := filepath.Join(dir, "profile.schema.json")
	if out, err := exec.Command(ajv, "compile", "--spec=draft7", "--strict=true", "-s", schema).CombinedOutput(); err != nil || !strings.Contains(string(out), "is valid") {
		t.Fatalf("ajv compile --strict=true: %v\n%s", err, out)
	}
	files := append([]string(nil), accept...)
	for _, fs := range reject {
		files = append(files, fs...)
	}
	args := []string{"validate", "--spec=draft7", "--strict=true", "--errors=text", "-s", schema}
	for _, f := range files {
		args = append(args, "-d", f)
	}
	out, _ := exec.Command(ajv, args...).CombinedOutput() // exit 1 when any file is invalid
	valid := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if f, ok := strings.CutSuffix(line, " valid"); ok {
			valid[f] = true
		} else if f, ok := strings.CutSuffix(line, " invalid"); ok {
			valid[f] = false
		}
	}
	checkVerdicts(t, "ajv", valid, accept, reject)
}

// TestSchemaPythonJSONSchema: Python's jsonschema (as editors' language
// servers and pre-commit hooks use it) takes the schema as valid draft-07
// and agrees with krender on the corpus.
func TestSchemaPythonJSONSchema(t *testing.T) {
	py := testtool.FindUsable(t, "KRENDER_PYTHON", []string{"python3", "/usr/bin/python3"},
		func(p string) bool { return exec.Command(p, "-c", "import jsonschema").Run() == nil },
		"python3 with jsonschema (hack/tools.sh installs python3-jsonschema); the schema is not checked by Python's validator")
	dir, accept, reject := schemaCorpus(t)
	const script = `
import json, sys
from jsonschema import Draft7Validator
schema = json.load(open(sys.argv[1]))
Draft7Validator.check_schema(schema)
v = Draft7Validator(schema, format_checker=Draft7Validator.FORMAT_CHECKER)
for f in sys.argv[2:]:
    errs = list(v.iter_errors(json.load(open(f))))
    print(f, "valid" if not errs else "invalid")
    for e in errs:
        print("  ", e.message[:200], file=sys.stderr)
`
	args := []string{"-c", script, filepath.Join(dir, "profile.schema.json")}
	args = append(args, accept...)
	for _, fs := range reject {
		args = append(args, fs...)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(py, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("jsonschema: %v\n%s", err, stderr.String())
	}
	valid := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if f, verdict, ok := strings.Cut(line, " "); ok {
			valid[f] = verdict == "valid"
		}
	}
	checkVerdicts(t, "jsonschema", valid, accept, reject)
}
