package subst

import (
	"fmt"
	"strings"
	"testing"

	"github.com/krender/krender/model/manifest"
)

func TestReferencePositionsInEveryScalarStyle(t *testing.T) {
	text := `kind: Pod
metadata:
  name: "q-${A}"
  labels: {k: '${A}-x'}
  annotations:
    ${KEY}: v
spec:
  containers:
    - name: c
      image: img
      args:
        - |
          echo $RUNTIME
            and ${A} again
        - >-
          folded ${A}
          $A
`
	objs, err := manifest.Parse(manifest.NewSource("p.yaml", []byte(text)))
	if err != nil {
		t.Fatal(err)
	}
	occ, _ := new(Stage).Substitute(objs[0], map[string]string{"A": "1"}, nil)
	var got []string
	for _, o := range occ {
		got = append(got, fmt.Sprintf("%s %s %v %q", o.Pos, o.Text, o.Defined, o.Runtime))
	}
	want := []string{
		`p.yaml:3:12 ${A} true ""`,
		`p.yaml:4:16 ${A} true ""`,
		`p.yaml:6:5 ${KEY} false ""`,
		`p.yaml:13:16 $RUNTIME false "container command/args"`,
		`p.yaml:14:17 ${A} true "container command/args"`,
		`p.yaml:16:18 ${A} true "container command/args"`,
		`p.yaml:17:11 $A true "container command/args"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	errs := Unresolved(occ)
	if len(errs) != 1 || errs.Error() != "p.yaml:6:5: undefined variable ${KEY}: not in the profile's vars or --set; "+KeepHint {
		t.Fatalf("unresolved: %v", errs)
	}
}

func TestYAML11Quoting(t *testing.T) {
	for v, str := range map[string]bool{
		"yes": false, "on": false, "Off": false, "y": false, "1e3": false, "0x10": false, "~": false, "12": false,
		"1.5": false, "hello": true, "v-yes": true, "a: b": false, "- x": false, "": true, "10.0.1.10": true,
	} {
		if got := readAsString(v); got != str {
			t.Errorf("readAsString(%q) = %v, want %v", v, got, str)
		}
	}
}
