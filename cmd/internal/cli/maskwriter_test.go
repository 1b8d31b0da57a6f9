package cli

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/krender/krender/internal/mask"
)

func TestWriterMasksAcrossWrites(t *testing.T) {
	var b bytes.Buffer
	w := newMaskWriter(&b, func() *mask.Text { return mask.NewText([]string{"hunter2"}) })
	fmt.Fprint(w, "the password is hun")
	fmt.Fprint(w, "ter2\n")
	if b.Len() != 0 {
		t.Fatal("written before Flush")
	}
	if err := w.Flush(); err != nil || b.String() != "the password is <redacted>\n" {
		t.Fatalf("%q %v", b.String(), err)
	}
}
