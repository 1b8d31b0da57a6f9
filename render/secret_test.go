package render

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/krender/krender/internal/bug"
	"github.com/krender/krender/model/filepos"
)

// valueError carries a value in a field, as a library's error may.
type valueError struct{ value string }

func (e *valueError) Error() string { return "bad value " + e.value }

// TestRedactErrKeepsSentinels: a message masked for a secret that reaches
// a Secret keeps answering errors.Is for what it wraps (krender hands a
// check over on check.ErrNeedsValidator), keeps its kind, and hands the
// unmasked error out to nobody.
func TestRedactErrKeepsSentinels(t *testing.T) {
	const value = "hunter2-Sup3rSecret"
	sentinel := errors.New("needs the validation")
	mask := redactor(map[string]bool{"DB_PASSWORD": true}, map[string]string{"DB_PASSWORD": value})
	if mask == nil {
		t.Fatal("no redactor for a secret with a value")
	}
	for _, err := range []error{
		sentinel,
		fmt.Errorf("stage check: %w", sentinel),
		fmt.Errorf("%s in %w", value, sentinel),
		errors.Join(&valueError{value}, sentinel),
	} {
		got := redactErr(err, mask)
		if !errors.Is(got, sentinel) {
			t.Errorf("%q: the redacted error %q no longer is the sentinel", err, got)
		}
		if strings.Contains(got.Error(), value) {
			t.Errorf("%q: the value is in %q", err, got)
		}
		var ve *valueError
		if errors.As(got, &ve) {
			t.Errorf("%q: errors.As hands out the unmasked %q", err, ve)
		}
		if filepos.IsInput(got) || errors.As(got, new(*bug.Error)) {
			t.Errorf("%q: became an input error or a bug", err)
		}
	}
	in := redactErr(fmt.Errorf("tenant a: %w", filepos.Errorf(filepos.Pos{File: "f", Line: 1, Col: 2}, "value %s", value)), mask)
	if !filepos.IsInput(in) || strings.Contains(in.Error(), value) {
		t.Errorf("a wrapped input error: %q, input %v", in, filepos.IsInput(in))
	}
	b := redactErr(&bug.Error{Value: "panic " + value}, mask)
	if !errors.As(b, new(*bug.Error)) || strings.Contains(b.Error(), value) {
		t.Errorf("a bug: %q", b)
	}
}
