package cli

import (
	"bytes"
	"io/fs"
	"strings"
	"testing"

	"github.com/krender/krender/files/filesys"
)

// panicFS panics where krender reads its first file, below the CLI.
type panicFS struct{ filesys.Mem }

func (*panicFS) ReadFile(string) ([]byte, error) { panic("boom") }
func (*panicFS) Open(string) (fs.File, error)    { panic("boom") }

func TestPanicIsInternalError(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"render", "-p", "p.yaml", "t.yaml"}, &out, &errb, &panicFS{})
	if code != exitError || out.Len() != 0 {
		t.Fatalf("exit %d, stdout %q", code, out.String())
	}
	got := errb.String()
	if !strings.HasPrefix(got, "krender: internal error: boom\nkrender: this is a bug in krender; please report it") || strings.Contains(got, "goroutine") {
		t.Fatalf("stderr:\n%s", got)
	}
}
