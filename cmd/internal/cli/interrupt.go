package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// interrupted is why a command stopped on a signal: it exits 128 plus the
// signal's number, as a shell reports a process the signal killed.
type interrupted struct{ sig os.Signal }

func (i interrupted) Error() string {
	name := i.sig.String()
	switch i.sig {
	case os.Interrupt:
		name = "SIGINT"
	case syscall.SIGTERM:
		name = "SIGTERM"
	}
	return "interrupted by " + name
}

func (i interrupted) status() int {
	if n, ok := i.sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 128 + 2
}

// interruptible is h's context, cancelled with an interrupted cause on
// SIGINT or SIGTERM while a command that renders runs (render, check,
// vars, fn) or gc runs (it stops between requests): killed outright, render
// would leave its temporary directory (-o DIR) or spool behind. The reading stops before its next document,
// every stage before its next object (substitution before its next
// scalar), and the writer before its next object; the writer removes what
// it created. stop ends the watch and turns the command's error into the
// interruption when a signal came, even one that came after the work was
// done. Further signals are ignored until stop, so as not to cut the
// clean-up short.
func (h *host) interruptible() (context.Context, func(error) error) {
	parent := h.ctx
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancelCause(parent)
	unwatch := func() {}
	if h.signals {
		unwatch = watchSignals(cancel)
	}
	return ctx, func(err error) error {
		unwatch()
		var stop interrupted
		if cause := context.Cause(ctx); errors.As(cause, &stop) {
			err = stop
		}
		cancel(nil)
		return err
	}
}

// watchSignals cancels with the first SIGINT or SIGTERM until unwatch,
// which also takes a signal that came while it stopped the watch.
func watchSignals(cancel context.CancelCauseFunc) (unwatch func()) {
	caught := make(chan os.Signal, 1)
	signal.Notify(caught, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case sig := <-caught:
			cancel(interrupted{sig})
		case <-done:
		}
	}()
	return func() {
		signal.Stop(caught)
		close(done)
		<-watched
		select {
		case sig := <-caught:
			cancel(interrupted{sig})
		default:
		}
	}
}
