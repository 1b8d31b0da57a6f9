package render

import (
	"errors"
	"testing"

	"github.com/krender/krender/internal/bug"
)

// A panic on a worker goroutine ends the run as an error, in index order
// like any other, instead of killing the process with a goroutine dump.
func TestPanicOnWorkerBecomesError(t *testing.T) {
	err := inOrder(8, 4, 8, func(i int) (int, error) {
		if i == 5 {
			var m map[string]int
			//lint:ignore SA5000 the nil map write is the runtime panic under test
			m["x"] = 1
		}
		return i, nil
	}, func(int, int) error { return nil })
	var ie *bug.Error
	if !errors.As(err, &ie) || len(ie.Stack) == 0 {
		t.Fatalf("got %v, want a *bug.Error with its stack", err)
	}
}
