package render

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/internal/bug"
	"github.com/krender/krender/internal/mask"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/render/subst/shellformat"
)

// secretNames are the variables written into a Secret's data or
// stringData (or into an object whose kind is itself a variable, which
// may turn out to be a Secret). Their values are secrets: CI logs show
// krender's messages, and a value must not reach them through a note, an
// error, a finding or `krender vars`.
func secretNames(templates []*manifest.Object) map[string]bool {
	names := map[string]bool{}
	for _, t := range templates {
		if kind := t.Kind(); kind != "Secret" && !strings.Contains(kind, "$") {
			continue
		}
		for _, field := range []string{"data", "stringData"} {
			manifest.WalkScalars(manifest.Value(t.Node, field), func(n *yaml.Node, _ bool) {
				for _, name := range shellformat.Names(n.Value) {
					names[name] = true
				}
			})
		}
	}
	return names
}

// redactor replaces the secret values of vars in a message (mask.Text's
// rules), or is nil when there are none.
func redactor(secret map[string]bool, vars map[string]string) func(string) string {
	var values []string
	for name := range secret {
		if v, ok := vars[name]; ok && v != "" {
			values = append(values, v)
		}
	}
	if len(values) == 0 {
		return nil
	}
	return mask.NewText(values).String
}

// redactErr applies redact to every message of err, keeping its kind: an
// input error stays one (exit 2 with its positions), a bug stays a bug,
// and any other error still answers errors.Is for the sentinels it wraps
// (check.ErrNeedsValidator, on which krender hands a check over).
func redactErr(err error, redact func(string) string) error {
	if err == nil || redact == nil {
		return err
	}
	if out := filepos.Rewrite(err, func(e filepos.Error) filepos.Error { e.Msg = redact(e.Msg); return e }); out != nil {
		return out
	}
	var ie *bug.Error
	if errors.As(err, &ie) {
		return &bug.Error{Value: redact(fmt.Sprint(ie.Value)), Stack: ie.Stack}
	}
	if filepos.IsInput(err) {
		return filepos.Errorf(filepos.Pos{}, "%s", redact(err.Error()))
	}
	msg := redact(err.Error())
	if msg == err.Error() {
		return err
	}
	return &redacted{msg: msg, err: err}
}

// redacted is an error whose message went through redact. It answers
// errors.Is for the error it stands for, whose sentinels carry no value,
// but does not unwrap: errors.As would hand out the unmasked messages.
type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }

func (e *redacted) Is(target error) bool { return errors.Is(e.err, target) }
