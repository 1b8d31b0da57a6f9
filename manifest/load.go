package manifest

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"strings"

	"github.com/mikefarah/yq/v4/pkg/yqlib"
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/filepos"
)

func init() {
	// yqlib logs through a package-level logger; krender's stderr is for users.
	yqlib.GetLogger().SetSlogger(slog.New(slog.DiscardHandler))
}

// Parse reads every document of src. It goes through yqlib's decoder so that
// leading comments and `---` lines come out exactly as `yq` would print them,
// which keeps krender's output byte-compatible with the pipelines it replaces.
func Parse(src *Source) ([]*Object, error) {
	dec := yqlib.NewYamlDecoder(yqlib.NewDefaultYamlPreferences())
	if err := dec.Init(bytes.NewReader(src.Text)); err != nil {
		return nil, filepos.Errorf(filepos.Pos{File: src.Path}, "%v", err)
	}
	var objs []*Object
	for doc := 0; ; doc++ {
		cn, err := dec.Decode()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, yamlError(src, err)
		}
		n, err := cn.MarshalYAML()
		if err != nil {
			return nil, filepos.Errorf(filepos.Pos{File: src.Path}, "%v", err)
		}
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			continue // an empty or comment-only document
		}
		if n.Kind != yaml.MappingNode {
			return nil, filepos.Errorf(filepos.Pos{File: src.Path, Line: n.Line, Col: n.Column},
				"document %d is not a mapping; a Kubernetes object is expected", doc+1)
		}
		if err := CheckDuplicateKeys(src, n); err != nil {
			return nil, err
		}
		objs = append(objs, &Object{Node: n, Src: src, Doc: doc, Leading: cn.LeadingContent})
	}
}

// CheckDuplicateKeys rejects a mapping with a key twice: go-yaml keeps the
// last silently when decoding into nodes, and kubectl would reject it.
func CheckDuplicateKeys(src *Source, n *yaml.Node) error {
	var errs filepos.List
	Walk(n, func(m *yaml.Node) {
		if m.Kind != yaml.MappingNode {
			return
		}
		seen := map[string]*yaml.Node{}
		for i := 0; i+1 < len(m.Content); i += 2 {
			k := m.Content[i]
			if k.Kind == yaml.ScalarNode && k.Value == "<<" {
				continue
			}
			if prev, dup := seen[k.Value]; dup {
				errs = append(errs, filepos.Errorf(filepos.Pos{File: src.Path, Line: k.Line, Col: k.Column},
					"duplicate key %q (first at line %d)", k.Value, prev.Line))
			}
			seen[k.Value] = k
		}
	})
	return errs.Err()
}

// yamlError turns a go-yaml error into one that names the file.
func yamlError(src *Source, err error) error {
	var le *yaml.LoadError
	if errors.As(err, &le) {
		return filepos.Errorf(filepos.Pos{File: src.Path, Line: le.Mark.Line, Col: le.Mark.Column},
			"invalid YAML: %s", le.Message)
	}
	var les *yaml.LoadErrors
	if errors.As(err, &les) && len(les.Errors) > 0 {
		var l filepos.List
		for _, e := range les.Errors {
			l = append(l, filepos.Errorf(filepos.Pos{File: src.Path, Line: e.Mark.Line, Col: e.Mark.Column},
				"invalid YAML: %s", e.Message))
		}
		return l.Err()
	}
	return filepos.Errorf(filepos.Pos{File: src.Path}, "invalid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
}
