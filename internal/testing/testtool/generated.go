package testtool

import (
	"bytes"
	"go/format"
	"os"
	"testing"
)

// CheckGenerated holds a committed generated Go file to src, the source
// its test generates from the libraries, or rewrites it when update is set
// (the test's -update flag). regenerate is the command that does so, for
// the message.
func CheckGenerated(t testing.TB, file string, src []byte, update bool, regenerate string) {
	t.Helper()
	src, err := format.Source(src)
	if err != nil {
		t.Fatal(err)
	}
	if update {
		if err := os.WriteFile(file, src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, src) {
		t.Errorf("%s differs from what the libraries say: %s, and read the diff", file, regenerate)
	}
}
