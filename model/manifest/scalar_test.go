package manifest

import (
	"math/rand/v2"
	"testing"
)

// The shortcut for plain words says what go-yaml v2 says, on every short
// string over an alphabet of the characters that matter and on random
// longer ones.
func TestReadsAsStringShortcutAgreesWithTheParser(t *testing.T) {
	const alphabet = "aynoftesrlu NYOTF01-._/:#"
	var words []string
	var grow func(prefix string, n int)
	grow = func(prefix string, n int) {
		words = append(words, prefix)
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			grow(prefix+string(c), n-1)
		}
	}
	grow("", 3)
	for w := range yaml11Words {
		words = append(words, w, w+"x", "x"+w)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, 1+r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		words = append(words, string(b))
	}
	shortcuts := 0
	for _, w := range words {
		if w == "" || !plainWord(w) {
			continue
		}
		shortcuts++
		if got, want := !yaml11Words[w], parsesAsString(w); got != want {
			t.Errorf("%q: shortcut says %v, go-yaml v2 says %v", w, got, want)
		}
	}
	if shortcuts < 1000 {
		t.Fatalf("only %d words took the shortcut", shortcuts)
	}
}
