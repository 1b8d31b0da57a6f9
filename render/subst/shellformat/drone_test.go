package shellformat

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	drone "github.com/drone/envsubst/v2"
	flux "github.com/fluxcd/pkg/envsubst"
)

// The flux and clusterctl dialects are held to the libraries those tools
// substitute with: github.com/fluxcd/pkg/envsubst (Flux's post-build
// substitution) and github.com/drone/envsubst/v2 at the version clusterctl
// builds with. They are imported by this test only: go.mod lists them, the
// krender binaries link neither (TestOraclesStayInTests).

var droneVars = map[string]string{"A": "Hello/World", "AB": "a.b.c", "E": "", "N": "3", "U": "ünï", "L": "x/y//z", "S": "$A ${A}"}

// expandDrone is what krender's flux and clusterctl dialects write for s
// when every name the profile defines is substituted and an undefined one
// is empty, as the tools write it without strict mode; ok is false where
// the tools fail.
func expandDrone(s string, vars map[string]string) (string, bool) {
	refs := ScanDrone(s)
	for _, r := range refs {
		if r.Bad != "" {
			return "", false
		}
	}
	lookup := func(n string) (string, bool) { v, ok := vars[n]; return v, ok }
	return Replace(s, refs, func(r Ref) (string, bool) {
		if r.Escape {
			return "$", true
		}
		return r.Eval(lookup), true
	}), true
}

func fluxEval(s string) (string, bool) {
	out, err := flux.Eval(s, func(n string) (string, bool) { return droneVars[n], true })
	if err != nil {
		return "", false // the input as given, with the error
	}
	return out, true
}

// droneEval is clusterctl's substitution; panicked: drone/envsubst/v2
// slices out of range on a negative length (`${A:1:-1}`), which Flux fixed.
func droneEval(s string) (out string, ok, panicked bool) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	out, err := drone.Eval(s, func(n string) string { return droneVars[n] })
	if err != nil {
		return "", false, false
	}
	return out, true, false
}

func TestDroneCases(t *testing.T) {
	for _, s := range []string{
		"$$CI_DIR", "$${PACKAGES_TO_TEST[@]}", "$$((n + 1))", "kill $$", "echo \"$$CI_VERSION\"", "$$$${A}", "$$${A}",
		"${A}", "${A:-d}", "${X:-d}", "${X:=d}", "${X=d}", "${E:-d}", "${E=d}", "${X:?m}", "${A:+alt}", "${X:-${A}}",
		"${#A}", "${A^}", "${A^^}", "${A,}", "${A,,}", "${A,^}", "${A:1}", "${A:1:3}", "${A:-3}", "${A:1:-1}", "${A:x}",
		"${A/o/0}", "${A//o/0}", "${A/#H/h}", "${A/%d/D}", "${A/o}", "${A/\\//-}", "${L//\\//_}", "${A/$$/x}",
		"${AB#*.}", "${AB##*.}", "${AB%.*}", "${AB%%.*}", "${AB#[a-b]}", "${AB%[}", "${U^}", "$A ${1} ${é}",
		"${PACKAGES_TO_TEST[@]}", "${ X}", "${", "${A", "${A:", "${#}", "${A-d}", "${A/x} a/b}", "$${__value.raw}",
		"$${env:VAR}", "$$(VAR)", `\\ \/ ${A}`,
	} {
		got, gotOK := expandDrone(s, droneVars)
		want, wantOK := fluxEval(s)
		if got != want || gotOK != wantOK {
			t.Errorf("%q: krender %q (ok %v), fluxcd/pkg/envsubst %q (ok %v)", s, got, gotOK, want, wantOK)
		}
	}
}

// TestDroneDifferential compares the dialect with both libraries on random
// strings built from what their grammar reads.
func TestDroneDifferential(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	atoms := []string{"$", "$", "{", "}", "}", "$$", "${", "${", "A", "AB", "E", "N", "U", "L", "S", "X", "1", "é", "_",
		":-", ":=", "=", ":?", ":+", "-", ":", "#", "##", "%", "%%", "/", "//", "/#", "/%", "^", "^^", ",", ",,",
		"*", "?", "[", "]", "a-z", "\\", "\\/", ".", " ", "x", "o", "-1", "2", "\n"}
	const n = 20000
	compared, failed, panics := 0, 0, 0
	for i := 0; i < n; i++ {
		var b strings.Builder
		words := func(n int) {
			for k := rng.Intn(n); k >= 0; k-- {
				b.WriteString(atoms[rng.Intn(len(atoms))])
			}
		}
		words(6)
		if i%2 == 0 { // a well-formed expression, more often than random atoms make one
			ops := []string{"", ":-", ":=", "=", ":?", ":+", "#", "##", "%", "%%", "/", "//", "/#", "/%", "^", "^^", ",", ",,", ":", ":"}
			b.WriteString("${" + []string{"A", "AB", "E", "N", "U", "L", "S", "X"}[rng.Intn(8)] + ops[rng.Intn(len(ops))])
			words(3)
			if rng.Intn(2) == 0 {
				b.WriteString([]string{"/", ":", "${A}", "-1"}[rng.Intn(4)])
				words(2)
			}
			b.WriteString("}")
			words(3)
		}
		s := b.String()
		got, gotOK := expandDrone(s, droneVars)
		want, wantOK := fluxEval(s)
		if got != want || gotOK != wantOK {
			t.Fatalf("%q: krender %q (ok %v), fluxcd/pkg/envsubst %q (ok %v)", s, got, gotOK, want, wantOK)
		}
		d, dOK, panicked := droneEval(s)
		if panicked {
			panics++
			continue
		}
		if d != want || dOK != wantOK {
			t.Fatalf("%q: drone/envsubst/v2 %q (ok %v), fluxcd/pkg/envsubst %q (ok %v)", s, d, dOK, want, wantOK)
		}
		compared++
		if !gotOK {
			failed++
		}
	}
	t.Logf("%d inputs: %d compared with both libraries (%d refused by all), %d only with Flux's (drone/envsubst/v2 panics)", n, compared, failed, panics)
	if failed > compared*9/10 {
		t.Fatalf("%d of %d inputs fail to parse: the generator tests little", failed, compared)
	}
}

func ExampleScanDrone() {
	s := "kill $$; echo ${A:-none} $${B}"
	for _, r := range ScanDrone(s) {
		fmt.Printf("%q escape=%v name=%q op=%q\n", r.Text(s), r.Escape, r.Name, r.Op)
	}
	// Output:
	// "$$" escape=true name="" op=""
	// "${A:-none}" escape=false name="A" op=":-"
	// "$$" escape=true name="" op=""
}

// FuzzDrone holds the flux and clusterctl dialects to fluxcd/pkg/envsubst
// on any input.
func FuzzDrone(f *testing.F) {
	for _, s := range []string{"$$A $${B} ${A:-x} ${AB%.*}", "${L//\\//_} ${A/#H/h} ${U^} ${A:1:-1}", "${PACKAGES_TO_TEST[@]}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gotOK := expandDrone(s, droneVars)
		if strings.IndexByte(s, 0) >= 0 {
			if gotOK {
				t.Fatalf("%q: a NUL, where the tools stop reading, must be refused", s)
			}
			return
		}
		want, wantOK := fluxEval(s)
		if got != want || gotOK != wantOK {
			t.Fatalf("%q: krender %q (ok %v), fluxcd/pkg/envsubst %q (ok %v)", s, got, gotOK, want, wantOK)
		}
	})
}

func TestNames(t *testing.T) {
	got := strings.Join(Names("$A ${B:-x} ${C^^} ${D:-${E}} $${F}"), " ")
	for _, want := range []string{"A", "B", "C", "D", "E", "F"} {
		if !strings.Contains(" "+got+" ", " "+want+" ") {
			t.Errorf("Names misses %s: %s", want, got)
		}
	}
}
