package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
)

// gitRunner runs git for files/gitfs (diff's base): the program found on
// the PATH main handed the command line, with main's environment, in dir.
type gitRunner struct {
	bin, dir string
	env      []string
}

func (g gitRunner) command(ctx context.Context, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, g.bin, args...)
	cmd.Dir, cmd.Env = g.dir, g.env
	if cmd.Env == nil {
		cmd.Env = []string{} // none rather than this process's
	}
	return cmd
}

func (g gitRunner) Output(ctx context.Context, args ...string) ([]byte, error) {
	cmd := g.command(ctx, args)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		if msg == "" {
			msg = err.Error()
		}
		return nil, errors.New(msg)
	}
	return out, nil
}

func (g gitRunner) Pipe(args ...string) (io.WriteCloser, io.Reader, func() error, error) {
	cmd := g.command(context.Background(), args)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, err
	}
	return in, out, func() error { in.Close(); return cmd.Wait() }, nil
}
