package cli

import (
	"bytes"
	"io"

	"github.com/krender/krender/internal/mask"
)

// maskWriter holds back what is written until Flush, so that a value split
// across two writes is still masked.
type maskWriter struct {
	w    io.Writer
	buf  bytes.Buffer
	text func() *mask.Text
}

// newMaskWriter masks with the Text that text returns at Flush: the CLI knows
// the values only once the flags are read, after the writers are handed out.
func newMaskWriter(w io.Writer, text func() *mask.Text) *maskWriter {
	return &maskWriter{w: w, text: text}
}

func (w *maskWriter) Write(p []byte) (int, error) { return w.buf.Write(p) }

// Flush writes out everything held back, masked.
func (w *maskWriter) Flush() error {
	if w.buf.Len() == 0 {
		return nil
	}
	s := w.text().String(w.buf.String())
	w.buf.Reset()
	_, err := io.WriteString(w.w, s)
	return err
}
