package shellformat

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/krender/krender/internal/testing/testtool"
)

func lookupIn(m map[string]string) func(string) (string, bool) {
	return func(n string) (string, bool) { v, ok := m[n]; return v, ok }
}

func TestExpandCases(t *testing.T) {
	vars := map[string]string{"A": "1", "REGISTRY": "r.example", "HOME": "/h", "B_2": "x y"}
	cases := []struct{ in, want string }{
		{"$A", "1"},
		{"${A}", "1"},
		{"$AB", "$AB"},
		{"${A}B", "1B"},
		{"${A:-d}", "${A:-d}"},
		{"${A%%.*}", "${A%%.*}"},
		{"${#A}", "${#A}"},
		{"$(hostname)", "$(hostname)"},
		{"$1 $@ $* $? $-", "$1 $@ $* $? $-"},
		{"$$", "$$"},
		{"$$A", "$1"},
		{`\$A`, `\1`},
		{"${HOME:-/root}", "${HOME:-/root}"},
		{"${A:-$B_2}", "${A:-x y}"},
		{"$NODE_IP:$A", "$NODE_IP:1"},
		{"${", "${"},
		{"$", "$"},
		{"${A", "${A"},
		{"$REGISTRY/app:${A}", "r.example/app:1"},
		{"ünï$A€", "ünï1€"},
		// $$ is nothing special: GNU reads `$` and then a reference.
		{"$${A}", "$1"},
		{"$${A:-word}", "$${A:-word}"},
		{"$${A%.*}", "$${A%.*}"},
		{"export H=$${HOME%.*}; $${NODE_IP}", "export H=$${HOME%.*}; $${NODE_IP}"},
		{"$$${A}", "$$1"},
		{"$$$A", "$$1"},
		{"kill $$", "kill $$"},
		{"$$1 $${1} $${ $$$", "$$1 $${1} $${ $$$"},
		{"$$A", "$1"},
		{"$${__value.raw} $${env:VAR} $$(VAR)", "$${__value.raw} $${env:VAR} $$(VAR)"},
	}
	for _, c := range cases {
		got, _ := Expand(c.in, lookupIn(vars))
		if got != c.want {
			t.Errorf("Expand(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestAfterDollar(t *testing.T) {
	s := "a $${X} $$Y ${Z} $$$W \\$V $$ $${1}"
	var got []string
	for _, r := range Scan(s) {
		got = append(got, fmt.Sprintf("%s:%v", r.Name, r.AfterDollar))
	}
	if want := "X:true Y:true Z:false W:true V:false"; strings.Join(got, " ") != want {
		t.Fatalf("Scan(%q) = %v, want %s", s, got, want)
	}
}

func TestScanPositions(t *testing.T) {
	s := "a ${X} $Y ${Z:-1} $$W"
	var got []string
	for _, r := range Scan(s) {
		got = append(got, fmt.Sprintf("%s@%d:%s", r.Name, r.Start, r.Text(s)))
	}
	want := "X@2:${X} Y@7:$Y W@19:$W"
	if strings.Join(got, " ") != want {
		t.Fatalf("Scan = %v, want %s", got, want)
	}
}

// TestDifferentialGNU compares Expand with GNU gettext's envsubst on random
// strings built from the characters that matter to it.
func TestDifferentialGNU(t *testing.T) {
	bin := testtool.Find(t, "KRENDER_ENVSUBST", []string{"envsubst"}, "GNU envsubst (apt-get install gettext-base); Expand is not compared with it")
	vars := map[string]string{"A": "va", "AB": "vab", "B_1": "$A", "HOME": "/home/x", "_U": "", "Z": "z z"}
	unlisted := []string{"NODE_IP", "host", "C", "ABC"}
	rng := rand.New(rand.NewSource(1))
	atoms := []string{"$", "{", "}", "A", "B", "_", "1", "AB", "B_1", "HOME", "_U", "Z", "C", "NODE_IP", "host",
		":-", "%%", "#", "(", ")", "\\", " ", "\n", "x", "é", "$$", "${", "@", "*"}
	const n = 4000
	inputs := make([]string, n)
	for i := range inputs {
		var b strings.Builder
		for k := rng.Intn(12); k >= 0; k-- {
			b.WriteString(atoms[rng.Intn(len(atoms))])
		}
		inputs[i] = b.String()
	}
	// One envsubst process for all inputs: records are split by a line that
	// holds no '$' and cannot be produced by any input.
	const sep = "\n@@krender-record@@\n"
	cmd := exec.Command(bin, "$A $AB $B_1 $HOME $_U $Z")
	env := []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	for _, u := range unlisted {
		env = append(env, u+"=SHOULD-NOT-APPEAR")
	}
	cmd.Env = env
	cmd.Stdin = strings.NewReader(strings.Join(inputs, sep))
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	outputs := strings.Split(out.String(), sep)
	if len(outputs) != n {
		t.Fatalf("envsubst returned %d records, want %d", len(outputs), n)
	}
	diffs, compared := 0, 0
	for i, in := range inputs {
		compared++
		got, _ := Expand(in, lookupIn(vars))
		if got != outputs[i] {
			diffs++
			if diffs <= 5 {
				t.Errorf("input %q: krender %q, GNU envsubst %q", in, got, outputs[i])
			}
		}
	}
	if diffs > 0 {
		t.Fatalf("%d of %d inputs differ from GNU envsubst", diffs, compared)
	}
	t.Logf("%d inputs compared", compared)
}

func FuzzExpandKeepsUnknown(f *testing.F) {
	f.Add("${A:-x} $B $(c) $1")
	f.Add("$${A} $$${B%.*} $${C:-$D} $$1 kill $$")
	f.Fuzz(func(t *testing.T, s string) {
		got, kept := Expand(s, func(string) (string, bool) { return "", false })
		if got != s {
			t.Fatalf("nothing known, yet %q became %q: every byte must stay", s, got)
		}
		if len(kept) != len(Scan(s)) {
			t.Fatal("every reference must be reported as kept")
		}
	})
}
