package contenthash

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/ruleid"
	"github.com/krender/krender/model/workload"
)

// warnOldNames warns where a container's command, args or env value spells
// a renamed object's old name: a program given a name as text
// (`--configmap=$(POD_NAMESPACE)/foo`) reads the object by that name, and
// no reference rewrite reaches it. A name another object of the render still
// has may be that object's (`helm create`'s Secret and Service share the
// release name, and `release-myapp:80` is the Service): there it warns only
// when the text before the name says the kind (`--configmap=`, the env var
// SETTINGS_CONFIGMAP, `kubectl get secret`).
func warnOldNames(s *manifest.Set, renamed map[key]*target) {
	taken := make(map[string]bool, len(s.Objects))
	for _, o := range s.Objects {
		taken[o.Name()] = true
	}
	for _, o := range s.Objects {
		if spec := workload.PodSpec(o); spec != nil {
			warnOldNamesIn(s, o, spec, renamed, taken)
		}
	}
}

// warnOldNamesIn looks for old names in the command, args and env values
// of the containers of o's pod spec.
func warnOldNamesIn(s *manifest.Set, o *manifest.Object, spec *yaml.Node, renamed map[key]*target, taken map[string]bool) {
	ns := s.NamespaceOf(o)
	warn := func(n *yaml.Node, before string) {
		names(n.Value, func(qual, name string, at int) {
			if qual == "" {
				qual = ns
			}
			for _, kind := range []string{"ConfigMap", "Secret"} {
				t := renamed[key{qual, kind, name}]
				if t == nil || taken[name] && !saysKind(before+" "+n.Value[:at], kind) {
					continue
				}
				s.Note(o, ruleid.OldNameText, filepos.Warning, o.Pos(n), fmt.Sprintf("%s %q is renamed %s, but this text names it by its old name: a program that reads it by that name "+
					"finds a stale copy or nothing (annotate the %s %s%s: \"off\" to keep its name)",
					kind, name, t.newName, kind, manifest.DirectivePrefix, Directive))
			}
		})
	}
	for _, ctr := range workload.Containers(spec) {
		for _, k := range []string{"command", "args"} {
			before := "" // a flag's value may be the next item: [--configmap, foo]
			manifest.WalkScalars(manifest.Value(ctr, k), func(n *yaml.Node, _ bool) {
				warn(n, before)
				before = n.Value
			})
		}
		if env := manifest.Value(ctr, "env"); env != nil && env.Kind == yaml.SequenceNode {
			for _, e := range env.Content {
				if v := manifest.Value(e, "value"); v != nil && v.Kind == yaml.ScalarNode {
					warn(v, manifest.ScalarAt(e, "name"))
				}
			}
		}
	}
}

// saysKind reports whether text names kind, in any case and spelling
// (configmap, config-map, CONFIG_MAP).
func saysKind(text, kind string) bool {
	text = strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(text))
	return strings.Contains(text, strings.ToLower(kind))
}

// names calls f for each word of text that could be an object's name, with
// the namespace written before it as `ns/name` ("" when there is none or a
// variable such as $(POD_NAMESPACE) stands there). Words of a file path
// (`/etc/foo`, `foo/app.conf`) are not names: a mounted ConfigMap's
// directory is often named after it.
func names(text string, f func(ns, name string, at int)) {
	for i := 0; i < len(text); {
		if !wordByte(text[i]) {
			i++
			continue
		}
		start := i
		for i < len(text) && wordByte(text[i]) {
			i++
		}
		name := strings.TrimRight(text[start:i], ".") // the end of a sentence
		if !isName(name, 253, true) || i < len(text) && text[i] == '/' {
			continue
		}
		ns := ""
		if start > 0 && text[start-1] == '/' {
			p := start - 1
			for p > 0 && !sepByte(text[p-1]) {
				p--
			}
			switch q := text[p : start-1]; {
			case strings.Contains(q, "/"):
				continue
			case strings.HasPrefix(q, "$"):
			case isName(q, 63, false):
				ns = q
			default:
				continue
			}
		}
		f(ns, name, start)
	}
}

// wordByte is a byte of a word: Kubernetes names, and what must not touch
// one (an upper-case letter or '_' makes it part of another word).
func wordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_'
}

// sepByte ends the word a namespace qualifier is read from.
func sepByte(c byte) bool {
	return strings.IndexByte(" \t\n\r=,;:\"'`[]{}", c) >= 0
}

// isName reports whether s is a DNS subdomain (dots allowed) or label.
func isName(s string, max int, dots bool) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
		switch {
		case alnum:
		case (c == '-' || dots && c == '.') && i > 0 && i < len(s)-1:
		default:
			return false
		}
	}
	return true
}
