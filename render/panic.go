package render

import (
	"fmt"
	"runtime/debug"
)

// InternalError is a panic below the command line turned into an error: a
// bug in krender ends as one message and exit status 2, not as a goroutine
// dump on the user's terminal. Stack is for KRENDER_DEBUG=1.
type InternalError struct {
	Value any
	Stack []byte
}

func (e *InternalError) Error() string { return fmt.Sprint(e.Value) }

// Recover turns a panic of the calling goroutine into *err. Use it
// deferred, on every goroutine krender starts: a panic on a goroutine
// other than main's cannot be recovered anywhere else.
func Recover(err *error) {
	if r := recover(); r != nil {
		*err = &InternalError{Value: r, Stack: debug.Stack()}
	}
}
