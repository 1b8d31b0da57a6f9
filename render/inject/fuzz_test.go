package inject

import (
	"strings"
	"testing"
)

// shellWord reads text the way a POSIX shell reads one word of a command:
// single quotes take everything up to the next quote literally, a
// backslash outside them takes the next byte literally, and any other
// byte a shell would interpret (a blank, an operator, an expansion, a
// glob, a quote, a comment or tilde, brace or history expansion, a control
// or non-ASCII byte) makes the word unsafe. It returns the word's value.
func shellWord(text string) (string, bool) {
	if strings.IndexByte(text, 0) >= 0 {
		return "", false // no argument can hold a NUL: the word would end there
	}
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(text[i+1:], '\'')
			if j < 0 {
				return "", false
			}
			b.WriteString(text[i+1 : i+1+j])
			i += j + 1
		case c == '\\':
			if i+1 == len(text) || text[i+1] == '\n' {
				return "", false
			}
			b.WriteByte(text[i+1])
			i++
		case c < 0x21 || c >= 0x7f || strings.IndexByte("|&;<>()$`\"*?[]#~{}!^", c) >= 0:
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// FuzzFill: whatever a profile gives as a placeholder value, what reaches
// the fragment is one shell word whose value is exactly the value given,
// or the value is refused at its position.
func FuzzFill(f *testing.F) {
	for _, s := range []string{"10.0.1.10", "fd00::1", "10.0.0.0/16", "31", "-1", "fs-0.efs.example.com", "tenant-a", "/mnt/efs",
		"it's", "$(id)", "a b", "x\ny", "`id`", "'", "\\", "~root", "*", "a=b", "--opt", "", "ünï", "\x00"} {
		for typ := range valueTypes {
			f.Add(s, typ, false)
		}
		f.Add(s, "string", true)
	}
	f.Fuzz(func(t *testing.T, v, typ string, quote bool) {
		text, err := fill("X", value(v, typ, quote))
		if err != nil {
			if err.Pos.File == "" || !err.Pos.IsKnown() {
				t.Fatalf("%q as %s: an error without a position: %v", v, typ, err)
			}
			return
		}
		got, ok := shellWord(text)
		if !ok {
			t.Fatalf("%q as %s (shellQuote %v) reaches the fragment as %q, which a shell interprets", v, typ, quote, text)
		}
		if got != v {
			t.Fatalf("%q as %s (shellQuote %v) reaches the shell as %q", v, typ, quote, got)
		}
	})
}
