package action_test

import (
	"context"
	"errors"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/loader"
	"github.com/krender/krender/lint/validator"
)

// TestRunStopsWithItsContext: check's and fn's actions run with the
// context Run is given (the command line's, which SIGINT and SIGTERM
// cancel): cancelled, they stop with its cause and return nothing.
func TestRunStopsWithItsContext(t *testing.T) {
	fsys := filesys.NewMem(fstest.MapFS{
		"p.yaml": {Data: []byte("vars: {V: one}\n")},
		"a.yaml": {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {v: $V}\n")},
	})
	items, err := loader.LoadTemplates(fsys, []string{"a.yaml"}, "")
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(stop)
	fn := &action.Fn{Items: items, Profile: "p.yaml", FS: fsys, Validator: validator.APIServer{}}
	if res, err := fn.Run(t.Context()); err != nil || len(res.Objects) != 1 {
		t.Fatalf("fn: %v, %d objects; want the ConfigMap", err, len(res.Objects))
	}
	if res, err := fn.Run(ctx); !errors.Is(err, stop) || res.Objects != nil || res.Findings != nil {
		t.Errorf("fn, cancelled: %v, %+v; want %v and nothing", err, res, stop)
	}
	k := &action.Check{Options: action.Options{Profile: "p.yaml", Paths: []string{"a.yaml"}}, FS: fsys, Validator: validator.APIServer{}}
	if res, err := k.Run(t.Context()); err != nil || len(res.Findings) == 0 {
		t.Fatalf("check: %v, %d findings; want hash-keeps-name", err, len(res.Findings))
	}
	if res, err := k.Run(ctx); !errors.Is(err, stop) || res.Findings != nil {
		t.Errorf("check, cancelled: %v, %+v; want %v and nothing", err, res, stop)
	}
}
