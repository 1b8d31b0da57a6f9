package cli

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/loadroot"
	"github.com/krender/krender/files/userfs"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/render/redact"
)

// LookupEnv reads one environment variable. The CLI gets it injected, like
// its file system, so tests never touch the process environment, and only
// --set-env calls it: nothing else reads the environment.
type LookupEnv func(name string) (string, bool)

// secretFlags are --set-env and --set-file of one command.
type secretFlags struct {
	env, file []string
}

func (f *secretFlags) register(c *cobra.Command) {
	c.Flags().StringArrayVar(&f.env, "set-env", nil, "NAME or NAME=ENVVAR: set a deploy-time variable from an environment variable (a CI secret); its value is never printed")
	c.Flags().StringArrayVar(&f.file, "set-file", nil, "NAME=PATH: set a deploy-time variable to a file's bytes (one trailing newline dropped); its value is never printed")
}

// resolve reads the secrets. Errors name flags and sources, never values.
// An empty value is an error: a CI secret that is not defined arrives as an
// empty variable, and rendering it would deploy an empty password.
//
// A file in the root must not be a link out of it (loadroot.Root.CheckGiven).
func (f *secretFlags) resolve(fsys fs.FS, lookup LookupEnv, root *loadroot.Root) ([]action.Secret, error) {
	var out []action.Secret
	for _, arg := range f.env {
		name, envVar, _ := strings.Cut(arg, "=")
		if envVar == "" {
			envVar = name
		}
		from := "--set-env " + arg
		v, ok := lookup(envVar)
		switch {
		case name == "":
			return nil, fmt.Errorf("%s: want NAME or NAME=ENVVAR", from)
		case !ok:
			return nil, fmt.Errorf("%s: environment variable %s is not set", from, envVar)
		case v == "":
			return nil, fmt.Errorf("%s: environment variable %s is empty (an undefined CI secret arrives empty)", from, envVar)
		}
		out = append(out, action.Secret{Name: name, Value: v, From: from})
	}
	for _, arg := range f.file {
		name, path, ok := strings.Cut(arg, "=")
		from := "--set-file " + arg
		if !ok || name == "" || path == "" {
			return nil, fmt.Errorf("%s: want NAME=PATH", from)
		}
		if err := root.CheckGiven("file of --set-file", path); err != nil {
			return nil, err
		}
		b, err := userfs.ReadFile(fsys, path)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", from, filepos.FileError(err))
		}
		v := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
		if v == "" {
			return nil, fmt.Errorf("%s: the file is empty", from)
		}
		out = append(out, action.Secret{Name: name, Value: v, From: from})
	}
	return out, nil
}

// masker is the one Text every output of a run masks with; it knows the
// values once a command has read its flags.
type masker struct{ text *redact.Text }

func (m *masker) get() *redact.Text { return m.text }

func (m *masker) add(secrets []action.Secret) {
	m.text = redact.NewText(action.SecretValues(secrets))
}
