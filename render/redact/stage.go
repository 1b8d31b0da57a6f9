// Package redact is the `--redact` stage: it writes Secret data as digests,
// so that a committed golden shows that a secret changed but never its
// value.
package redact

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/internal/mask"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/ruleid"
)

// DigestPrefix starts every value Stage writes in place of Secret data.
const DigestPrefix = "krender:sha256:"

// Digest is what a Secret value becomes: the sha256 of its bytes, so that
// `data` (base64) and `stringData` with the same content read the same.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return DigestPrefix + hex.EncodeToString(sum[:])
}

// Stage is `--redact`: the last stage, so every stage before it (hashing
// above all: the names still change with the real data) sees the values.
// Values are the secret variables' values; one that shows up outside a
// Secret's data is masked there too, with a warning, since a golden must
// never hold it.
type Stage struct {
	Values []string
}

func (st Stage) Apply(s *manifest.Set) error {
	text := mask.NewText(st.Values)
	for _, o := range s.Objects {
		secret := o.Kind() == "Secret" && o.Group() == ""
		for _, field := range []string{"data", "stringData"} {
			m := manifest.Value(o.Node, field)
			if !secret || m == nil || m.Kind != yaml.MappingNode {
				continue
			}
			for i := 1; i < len(m.Content); i += 2 {
				v := m.Content[i]
				if v.Kind != yaml.ScalarNode {
					continue
				}
				b := []byte(v.Value)
				if field == "data" {
					if d, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(v.Value), "")); err == nil {
						b = d
					}
				}
				v.Value, v.Tag, v.Style = Digest(b), "!!str", 0
			}
		}
		leaked := false
		manifest.WalkScalars(o.Node, func(n *yaml.Node, key bool) {
			if masked := text.String(n.Value); masked != n.Value {
				leaked = true
				n.Value, n.Tag = masked, "!!str"
				if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
					n.Style = yaml.DoubleQuotedStyle
				}
			}
		})
		if leaked {
			name := o.Name()
			if o.BaseName != "" {
				name = o.BaseName // as written: notes are deduplicated across tenants
			}
			s.Note(o, ruleid.SecretOutsideData, filepos.Warning, o.Pos(o.Node), fmt.Sprintf("%s %q holds the value of a --set-env/--set-file variable outside a Secret's data; --redact wrote %s in its place",
				o.Kind(), name, mask.Mask))
		}
	}
	return nil
}
