package yaml11

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// The regular expressions the hand-written matchers stand for.
var (
	floatRE    = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
	decimalRE  = regexp.MustCompile(`^-?[1-9][0-9]{0,17}$|^0$`)
	fractionRE = regexp.MustCompile(`^[0-9]{1,9}\.[0-9]{1,9}$`)
)

// TestMatchersAgreeWithRegexps: on chosen and on random strings of the
// characters numbers are made of, each matcher says what its regular
// expression says.
func TestMatchersAgreeWithRegexps(t *testing.T) {
	inputs := []string{"", "0", "-0", "00", "1", "-1", "+1", "123456789012345678", "1234567890123456789",
		"-123456789012345678", "1.5", ".5", "5.", "-.5", "+.5e3", "1e3", "1e", "1e+", "1e+3", "1E-3", "e3", ".e3",
		".", "1.2.3", "123456789.123456789", "1234567890.1", "1.1234567890", "0.0", "1_000", "0x1F", "1ee3",
		"1.5e3e4", "--1", "+-1", "1e3.5", "\n1", "1\n"}
	rnd := rand.New(rand.NewPCG(3, 4))
	const alphabet = "0123456789.eE+-_x"
	for range 200000 {
		b := make([]byte, rnd.IntN(12))
		for i := range b {
			b[i] = alphabet[rnd.IntN(len(alphabet))]
		}
		inputs = append(inputs, string(b))
	}
	for _, s := range inputs {
		if got, want := yaml11Float(s), floatRE.MatchString(s); got != want {
			t.Errorf("yaml11Float(%q) = %v, the expression says %v", s, got, want)
		}
		if got, want := decimal(s), decimalRE.MatchString(s); got != want {
			t.Errorf("decimal(%q) = %v, the expression says %v", s, got, want)
		}
		if got, want := fraction(s), fractionRE.MatchString(s); got != want {
			t.Errorf("fraction(%q) = %v, the expression says %v", s, got, want)
		}
	}
}
