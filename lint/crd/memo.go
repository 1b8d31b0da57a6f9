package crd

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/manifest"
)

// Tenants often render the same custom resource (same content, same
// namespace): validating it costs about a millisecond of the API server's
// code, so the catalog validates each distinct one once per run and
// points the remembered problems into every copy.

// memoKey names one distinct validation. The problems remembered for it
// carry their field paths, so their nodes can be found again in a copy.
type memoKey struct {
	def       *Definition
	namespace string
	content   [sha256.Size]byte
}

// Validate is d.Validate, once per distinct (definition, namespace,
// content) in the catalog's run. Objects with aliases are validated each
// time.
func (c *Catalog) Validate(d *Definition, o *manifest.Object, namespace string) ([]Problem, error) {
	sum, ok := contentSum(o.Node)
	if !ok {
		return c.validate(d, o, namespace)
	}
	key := memoKey{d, namespace, sum}
	c.mu.Lock()
	ps, hit := c.validated[key]
	c.mu.Unlock()
	if hit {
		return relocate(o, ps), nil
	}
	ps, err := c.validate(d, o, namespace)
	if err != nil {
		return nil, err // reported as failing each time, never remembered
	}
	c.mu.Lock()
	if c.validated == nil {
		c.validated = map[memoKey][]Problem{}
	}
	c.validated[key] = ps
	c.mu.Unlock()
	return ps, nil
}

// validate counts the validations that run.
func (c *Catalog) validate(d *Definition, o *manifest.Object, namespace string) ([]Problem, error) {
	c.validations.Add(1)
	return d.Validate(o, namespace)
}

// relocate points problems found in another object of the same content
// into o, as Validate finds their nodes.
func relocate(o *manifest.Object, ps []Problem) []Problem {
	if ps == nil {
		return nil
	}
	out := make([]Problem, len(ps))
	for i, p := range ps {
		p.Node = locate(o, p.Path)
		out[i] = p
	}
	return out
}

// contentSum hashes what Validate reads of the tree under n: kinds, tags,
// styles, values and anchors, not positions or comments. false when the
// tree has an alias.
func contentSum(n *yaml.Node) ([sha256.Size]byte, bool) {
	h := sha256.New()
	var sum [sha256.Size]byte
	if !hashNode(h, n) {
		return sum, false
	}
	h.Sum(sum[:0])
	return sum, true
}

func hashNode(h hash.Hash, n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode || n.Alias != nil {
		return false
	}
	var head [3 * binary.MaxVarintLen64]byte
	b := binary.AppendUvarint(head[:0], uint64(n.Kind))
	b = binary.AppendUvarint(b, uint64(n.Style))
	b = binary.AppendUvarint(b, uint64(len(n.Content)))
	h.Write(b)
	for _, s := range []string{n.Tag, n.Value, n.Anchor} {
		h.Write(binary.AppendUvarint(head[:0], uint64(len(s))))
		h.Write([]byte(s))
	}
	for _, c := range n.Content {
		if !hashNode(h, c) {
			return false
		}
	}
	return true
}
