// Package bug turns a panic into an error: a bug in krender ends as one
// message and exit status 2, not as a goroutine dump on the user's
// terminal. The engine recovers its goroutines with it; the CLI reports it.
package bug

import (
	"fmt"
	"runtime/debug"
)

// Error is a panic below the command line turned into an error. Stack is
// for KRENDER_DEBUG=1.
type Error struct {
	Value any
	Stack []byte
}

func (e *Error) Error() string { return fmt.Sprint(e.Value) }

// Recover turns a panic of the calling goroutine into *err. Use it
// deferred, on every goroutine krender starts: a panic on a goroutine
// other than main's cannot be recovered anywhere else.
func Recover(err *error) {
	if r := recover(); r != nil {
		*err = &Error{Value: r, Stack: debug.Stack()}
	}
}
