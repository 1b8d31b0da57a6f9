package handover

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestSameBuild: krender-check runs what a krender of the same source
// hands it, and where either build does not know its source, what a
// krender that reads the same flags, profiles and rules hands it; it
// refuses another revision or release, and another contract.
func TestSameBuild(t *testing.T) {
	const a, b = "revision 9c5ccef0a5e1d2b3c4d5e6f708192a3b4c5d6e7f", "revision 0706bf3a5e1d2b3c4d5e6f708192a3b4c5d6e7f"
	made := func(source, contract string) build {
		return build{Version: "krender " + source, Source: source, Contract: contract}
	}
	for _, c := range []struct {
		parent, self build
		refused      string // "" accepted
	}{
		{made(a, "c1"), made(a, "c1"), ""},
		{made(a, "c1"), made("", "c1"), ""}, // make build beside go install ./cmd/krender-check
		{made("", "c1"), made(a, "c1"), ""},
		{made("", "c1"), made("", "c1"), ""},              // both -buildvcs=false
		{made("version v1.4.0", "c1"), made(a, "c1"), ""}, // go install @v1.4.0 beside a clone's build
		{made("version v1.4.0", "c1"), made("version v1.4.0", "c1"), ""},
		{made(a, "c1"), made(b, "c1"), "of another revision"}, // a rebuilt helper of another commit
		{made("version v1.4.0", "c1"), made("version v1.4.1", "c1"), "of another version"},
		{made(a, "c1"), made("", "c2"), "read other flags, profiles or rules"},
		{made("", "c1"), made("", "c2"), "read other flags, profiles or rules"},
		{made("version v1.4.0", "c1"), made(a, "c2"), "read other flags, profiles or rules"},
	} {
		err := sameBuild(c.parent, c.self)
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%+v run by %+v: refused: %v", c.self, c.parent, err)
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused) || !strings.Contains(err.Error(), "install both from the same release")):
			t.Errorf("%+v run by %+v: got %v, want refused, %s", c.self, c.parent, err, c.refused)
		}
	}
}

// tree is a small command tree: krender with check (--format) and tenants.
func tree() *cobra.Command {
	root := &cobra.Command{Use: "krender"}
	check := &cobra.Command{Use: "check"}
	check.Flags().String("format", "text", "")
	root.AddCommand(check, &cobra.Command{Use: "tenants"})
	return root
}

// TestContract: the contract of a command tree is stable; a flag more, a
// default changed or a command less is another.
func TestContract(t *testing.T) {
	same := Contract(tree())
	if same == "" || same != Contract(tree()) {
		t.Fatalf("contract %q is not stable", same)
	}
	sub := func(root *cobra.Command, name string) *cobra.Command {
		c, _, err := root.Find([]string{name})
		if err != nil || c.Name() != name {
			t.Fatalf("no command %s: %v", name, err)
		}
		return c
	}
	for what, change := range map[string]func(root *cobra.Command){
		"a flag more":       func(root *cobra.Command) { root.PersistentFlags().Bool("new", false, "") },
		"a default changed": func(root *cobra.Command) { sub(root, "check").Flags().Lookup("format").DefValue = "json" },
		"a command less":    func(root *cobra.Command) { root.RemoveCommand(sub(root, "tenants")) },
	} {
		root := tree()
		change(root)
		if Contract(root) == same {
			t.Errorf("%s: the same contract", what)
		}
	}
}

// TestCheckParent: krender-check runs alone, and for a krender that gives
// its own build's word; it refuses one of an earlier release, one whose
// word it cannot read and one that reads another command tree.
func TestCheckParent(t *testing.T) {
	mine, err := json.Marshal(thisBuild(tree))
	if err != nil {
		t.Fatal(err)
	}
	other := thisBuild(func() *cobra.Command { r := tree(); r.Flags().Bool("new", false, ""); return r })
	other.Source = "" // a build that does not know its source
	theirs, err := json.Marshal(other)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env     map[string]string
		refused string // "" accepted
	}{
		{nil, ""},
		{map[string]string{parentEnv: string(mine), legacyParentEnv: "krender v9"}, ""},
		{map[string]string{legacyParentEnv: "krender v0.0.1 go1.20"}, `the krender that ran it is "krender v0.0.1 go1.20": install both`},
		{map[string]string{parentEnv: "krender v0.0.3"}, `says "krender v0.0.3" of its build, which this release does not read`},
		{map[string]string{parentEnv: `{"version":"krender v0.0.2"}`}, `which this release does not read`},
		{map[string]string{parentEnv: string(theirs)}, "they read other flags, profiles or rules"},
	} {
		err := CheckParent(func(name string) (string, bool) { v, ok := c.env[name]; return v, ok }, tree)
		if (c.refused == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.refused) {
			t.Errorf("%v: got %v, want refused %q", c.env, err, c.refused)
		}
	}
}
