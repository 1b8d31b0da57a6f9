package cli

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/loadroot"
	"github.com/krender/krender/files/userfs"
	"github.com/krender/krender/internal/mask"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/profiles"
)

// LookupEnv reads one environment variable. The CLI gets it injected, like
// its file system (main hands it the process's, Process.Environ), so tests
// never touch the process environment. --set-env reads it, and so do the
// CLI's own KRENDER_DEBUG and the PATH krender-check is looked up on;
// nothing else reads the environment.
type LookupEnv func(name string) (string, bool)

// secretFlags are --set-env and --set-file of one command.
type secretFlags struct {
	env, file []string
}

func (f *secretFlags) register(c *cobra.Command) {
	c.Flags().StringArrayVar(&f.env, "set-env", nil, "NAME or NAME=ENVVAR: set a deploy-time variable from an environment variable (a CI secret); its value is never printed")
	c.Flags().StringArrayVar(&f.file, "set-file", nil, "NAME=PATH: set a deploy-time variable to a file's bytes (one trailing newline dropped); its value is never printed")
}

// resolve reads the secrets. An empty value is an error: a CI secret that
// is not defined arrives as an empty variable, and rendering it would
// deploy an empty password.
//
// Errors name a flag by its place among its kind ("--set-env #2"), never by
// what was typed: the mistake they report is often a value typed where a
// name belongs (--set-env DB_PASSWORD="$DB_PASSWORD"), and any part of it
// may be secret (base64 padding makes "c2VjcmV0=" read as NAME=). Once
// resolved, a secret goes by its variable's name ("--set-env DB_PASSWORD").
//
// A file in the root must not be a link out of it (loadroot.Root.CheckGiven).
func (f *secretFlags) resolve(fsys fs.FS, lookup LookupEnv, root *loadroot.Root) ([]action.Secret, error) {
	var out []action.Secret
	for i, arg := range f.env {
		s, err := envSecret(fmt.Sprintf("--set-env #%d", i+1), arg, lookup)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	for i, arg := range f.file {
		s, err := fileSecret(fmt.Sprintf("--set-file #%d", i+1), arg, fsys, root)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// notShown ends an error about a --set-env or --set-file argument.
const notShown = " (the argument is not shown: it may hold a value)"

// envSecret reads one --set-env NAME or NAME=ENVVAR; flag names it in errors.
func envSecret(flag, arg string, lookup LookupEnv) (action.Secret, error) {
	name, envVar, named := strings.Cut(arg, "=")
	if !named {
		envVar = name
	}
	switch {
	case !profiles.ValidVarName(name):
		return action.Secret{}, fmt.Errorf("%s: want NAME or NAME=ENVVAR, NAME a variable's name ([A-Za-z_][A-Za-z0-9_]*); to give a value on the command line, use --set NAME=VALUE%s", flag, notShown)
	case !profiles.ValidVarName(envVar):
		return action.Secret{}, fmt.Errorf("%s: what follows = is not an environment variable's name ([A-Za-z_][A-Za-z0-9_]*): NAME=ENVVAR reads the environment variable ENVVAR; to give a value on the command line, use --set NAME=VALUE%s", flag, notShown)
	}
	v, ok := lookup(envVar)
	switch {
	case !ok:
		return action.Secret{}, fmt.Errorf("%s: the environment variable it names is not set%s", flag, notShown)
	case v == "":
		return action.Secret{}, fmt.Errorf("%s: the environment variable it names is empty (an undefined CI secret arrives empty)%s", flag, notShown)
	}
	return action.Secret{Name: name, Value: v, From: "--set-env " + name}, nil
}

// fileSecret reads one --set-file NAME=PATH; flag names it in errors.
func fileSecret(flag, arg string, fsys fs.FS, root *loadroot.Root) (action.Secret, error) {
	name, path, ok := strings.Cut(arg, "=")
	switch {
	case !ok || name == "" || path == "":
		return action.Secret{}, fmt.Errorf("%s: want NAME=PATH%s", flag, notShown)
	case !profiles.ValidVarName(name):
		return action.Secret{}, fmt.Errorf("%s: want NAME=PATH, NAME a variable's name ([A-Za-z_][A-Za-z0-9_]*)%s", flag, notShown)
	}
	if err := root.CheckGiven("file of --set-file", path); err != nil {
		return action.Secret{}, err // a link that exists: a path, not a value
	}
	b, err := userfs.ReadFile(fsys, path)
	if err != nil {
		msg := mask.NewText([]string{path}).String(filepos.FileError(err).Error())
		return action.Secret{}, fmt.Errorf("%s: cannot read its file: %s%s", flag, msg, notShown)
	}
	v := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if v == "" {
		return action.Secret{}, fmt.Errorf("%s: its file is empty%s", flag, notShown)
	}
	return action.Secret{Name: name, Value: v, From: "--set-file " + name}, nil
}

// masker is the one Text every output of a run masks with; it knows the
// values once a command has read its flags.
type masker struct{ text *mask.Text }

func (m *masker) get() *mask.Text { return m.text }

func (m *masker) add(secrets []action.Secret) {
	m.text = mask.NewText(action.SecretValues(secrets))
}
