package action

import (
	"context"
	"errors"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/files/filesys"
)

// TestRunStopsOnDoneContext: an action run with a context already done
// returns its cause and no result, so that the command line prints
// nothing and exits as the signal says.
func TestRunStopsOnDoneContext(t *testing.T) {
	stop := errors.New("stopped")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	fsys := fstest.MapFS{
		"profile.yaml": {Data: []byte("vars: {HOST: db}\ntenants:\n  a: {}\n")},
		"app.yaml":     {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  host: $HOST\n")},
	}
	for name, run := range map[string]func() (bool, error){
		"version": func() (bool, error) { r, err := (&Version{}).Run(ctx); return r != nil, err },
		"schema":  func() (bool, error) { r, err := (&Schema{}).Run(ctx); return r != nil, err },
		"vars": func() (bool, error) {
			r, err := (&Vars{FS: filesys.NewMem(fsys), Options: Options{Profile: "profile.yaml", Paths: []string{"app.yaml"}}}).Run(ctx)
			return r != nil, err
		},
		"tenants": func() (bool, error) {
			r, err := (&Tenants{FS: filesys.NewMem(fsys), Profile: "profile.yaml"}).Run(ctx)
			return r != nil, err
		},
	} {
		if result, err := run(); err != stop || result {
			t.Errorf("%s: got a result %v, %v; want the cause alone", name, result, err)
		}
	}
}
