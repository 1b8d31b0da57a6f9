package shellformat

import (
	"bytes"
	"math/rand"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/krender/krender/internal/testing/testtool"
)

// gnuVariables is gettext's find_variables over a SHELL-FORMAT argument:
// the names written `$NAME` or `${NAME}` in it. The argument is a C string,
// so it ends at the first NUL.
func gnuVariables(format string) map[string]bool {
	if i := strings.IndexByte(format, 0); i >= 0 {
		format = format[:i]
	}
	names := map[string]bool{}
	s := format
	for i := 0; i < len(s); {
		c := s[i]
		i++
		if c != '$' {
			continue
		}
		braced := i < len(s) && s[i] == '{'
		if braced {
			i++
		}
		start := i
		if i >= len(s) || !gnuNameStart(s[i]) {
			continue
		}
		for i++; i < len(s) && gnuNameChar(s[i]); i++ {
		}
		end := i
		if braced {
			if i >= len(s) || s[i] != '}' {
				continue
			}
			i++
		}
		names[s[start:end]] = true
	}
	return names
}

func gnuNameStart(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_' }
func gnuNameChar(c byte) bool  { return gnuNameStart(c) || c >= '0' && c <= '9' }

// gnuSubst is gettext's subst_from_stdin, transcribed: one character at a
// time with one character of push-back, exactly as envsubst.c reads its
// input. A listed name is replaced by its value in env, or by nothing
// when env has none; everything else is copied.
func gnuSubst(in string, listed map[string]bool, env map[string]string) string {
	var out strings.Builder
	pos, pushed := 0, -1
	getc := func() int {
		if pushed >= 0 {
			c := pushed
			pushed = -1
			return c
		}
		if pos >= len(in) {
			return -1
		}
		pos++
		return int(in[pos-1])
	}
	ungetc := func(c int) {
		if c >= 0 {
			pushed = c
		}
	}
	for {
		c := getc()
		if c < 0 {
			return out.String()
		}
		if c != '$' {
			out.WriteByte(byte(c))
			continue
		}
		opening, closing := false, false
		c = getc()
		if c == '{' {
			opening = true
			c = getc()
		}
		if c < 0 || !gnuNameStart(byte(c)) {
			ungetc(c)
			out.WriteByte('$')
			if opening {
				out.WriteByte('{')
			}
			continue
		}
		var name []byte
		for c >= 0 && gnuNameChar(byte(c)) {
			name = append(name, byte(c))
			c = getc()
		}
		valid := true
		if opening {
			if c == '}' {
				closing = true
			} else {
				valid = false
				ungetc(c)
			}
		} else {
			ungetc(c)
		}
		if valid && !listed[string(name)] {
			valid = false
		}
		if valid {
			out.WriteString(env[string(name)]) // getenv: NULL writes nothing
			continue
		}
		out.WriteByte('$')
		if opening {
			out.WriteByte('{')
		}
		out.Write(name)
		if closing {
			out.WriteByte('}')
		}
	}
}

// modelEnv is the environment the model and the tests run with: values
// that hold references themselves (never expanded again), an empty one,
// and names left unset.
var modelEnv = map[string]string{"A": "va", "AB": "$A", "B_1": "${AB}", "HOME": "/home/x", "_U": "", "Z": "z z", "é": "no"}

// FuzzShellFormat holds Expand to GNU `envsubst 'SHELL-FORMAT'`, modelled
// above, for any input and any SHELL-FORMAT: listed names defined or not.
func FuzzShellFormat(f *testing.F) {
	for _, s := range [][2]string{
		{"$A ${A} $AB ${AB}x $$A $${1} \\$A ${A:-d} ${A%%.*} ${#A} $(A) $1 $@ ${ $ ${A", "$A $AB"},
		{"${NODE_IP}:$HOME/${_U}${Z}", "${HOME} $NODE_IP ${_U}"},
		{"$A$B_1$Z$", "$B_1 ${Z"},
		{"${{A}} ${A}} $${{A}}", "$A$A"},
		{"\x00$A\x00", "$A\x00$Z"},
		{"ünï$A€", "$A"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, in, format string) {
		listed := gnuVariables(format)
		want := gnuSubst(in, listed, modelEnv)
		got, kept := Expand(in, func(name string) (string, bool) {
			if !listed[name] {
				return "", false
			}
			return modelEnv[name], true
		})
		if got != want {
			t.Fatalf("Expand(%q) with SHELL-FORMAT %q = %q; GNU envsubst gives %q", in, format, got, want)
		}
		for _, r := range kept {
			if listed[r.Name] {
				t.Fatalf("%q: listed name %s reported as kept", in, r.Name)
			}
		}
	})
}

// TestModelIsGNU checks the model itself against the real envsubst on
// random inputs and formats, so the fuzzer compares with GNU's behaviour
// and not with a guess of it.
func TestModelIsGNU(t *testing.T) {
	bin := testtool.Find(t, "KRENDER_ENVSUBST", []string{"envsubst"}, "GNU envsubst (apt-get install gettext-base); the model is not checked against it")
	rng := rand.New(rand.NewSource(7))
	atoms := []string{"$", "{", "}", "A", "B", "_", "1", "AB", "B_1", "HOME", "_U", "Z", "C", "é", ":-", "#", "(", "\\", " ", "\n", "$$", "${"}
	gen := func(n int) string {
		var b strings.Builder
		for k := rng.Intn(n); k >= 0; k-- {
			b.WriteString(atoms[rng.Intn(len(atoms))])
		}
		return b.String()
	}
	env := []string{"PATH=" + os.Getenv("PATH")}
	names := make([]string, 0, len(modelEnv))
	for k := range modelEnv {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if k != "é" {
			env = append(env, k+"="+modelEnv[k])
		}
	}
	for range 40 {
		format := gen(8)
		const sep = "\n@@krender-record@@\n"
		inputs := make([]string, 50)
		for i := range inputs {
			inputs[i] = gen(12)
		}
		cmd := exec.Command(bin, format)
		cmd.Env = env
		cmd.Stdin = strings.NewReader(strings.Join(inputs, sep))
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		outputs := strings.Split(out.String(), sep)
		listed := gnuVariables(format)
		for i, in := range inputs {
			if want := gnuSubst(in, listed, modelEnv); outputs[i] != want {
				t.Fatalf("SHELL-FORMAT %q, input %q: envsubst %q, model %q", format, in, outputs[i], want)
			}
		}
	}
}
