package zones

import (
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/manifest"
)

// pinned reports the one zone a pod spec is held to, and the node that says
// so: a nodeSelector on the zone label, or required node affinity whose
// every term (terms are ORed) allows exactly that zone.
func pinned(spec *yaml.Node) (string, *yaml.Node) {
	if v := manifest.Value(manifest.Value(spec, "nodeSelector"), ZoneKey); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value, v
	}
	terms := requiredTerms(spec)
	if len(terms) == 0 {
		return "", nil
	}
	var pin *yaml.Node
	for _, t := range terms {
		var found *yaml.Node
		for _, e := range zoneExprs(t) {
			vals := manifest.Value(e, "values")
			if manifest.ScalarAt(e, "operator") == "In" && vals != nil && len(vals.Content) == 1 && vals.Content[0].Kind == yaml.ScalarNode {
				found = vals.Content[0]
				break
			}
		}
		if found == nil || (pin != nil && found.Value != pin.Value) {
			return "", nil
		}
		if pin == nil {
			pin = found
		}
	}
	return pin.Value, pin
}

// allows reports whether pods of spec may run in zone, as far as the zone
// label decides: some required term must accept it.
func allows(spec *yaml.Node, zone string) bool {
	terms := requiredTerms(spec)
	if len(terms) == 0 {
		return true
	}
	for _, t := range terms {
		ok := true
		for _, e := range zoneExprs(t) {
			ok = ok && exprAllows(e, zone)
		}
		if ok {
			return true
		}
	}
	return false
}

func exprAllows(e *yaml.Node, zone string) bool {
	in := false
	if vals := manifest.Value(e, "values"); vals != nil {
		for _, v := range vals.Content {
			in = in || v.Value == zone
		}
	}
	switch manifest.ScalarAt(e, "operator") {
	case "In":
		return in
	case "NotIn":
		return !in
	case "Exists":
		return true
	}
	return false // DoesNotExist, or Gt/Lt, which no zone name satisfies
}

func requiredTerms(spec *yaml.Node) []*yaml.Node {
	l := manifest.Lookup(spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	if l == nil || l.Kind != yaml.SequenceNode {
		return nil
	}
	return l.Content
}

func zoneExprs(term *yaml.Node) []*yaml.Node {
	var out []*yaml.Node
	if l := manifest.Value(term, "matchExpressions"); l != nil && l.Kind == yaml.SequenceNode {
		for _, e := range l.Content {
			if manifest.ScalarAt(e, "key") == ZoneKey {
				out = append(out, e)
			}
		}
	}
	return out
}

// requireZone adds `zone In [name]` to every required node selector term
// (terms are ORed, so a term without it would let pods run anywhere),
// creating the affinity when there is none.
func (c *config) requireZone(spec *yaml.Node, name string) {
	req := manifest.Ensure(manifest.Ensure(manifest.Ensure(spec, "affinity"), "nodeAffinity"), "requiredDuringSchedulingIgnoredDuringExecution")
	terms := manifest.Value(req, "nodeSelectorTerms")
	if terms == nil || terms.Kind != yaml.SequenceNode || len(terms.Content) == 0 {
		terms = seq(mapping())
		manifest.Put(req, "nodeSelectorTerms", terms)
	}
	for _, t := range terms.Content {
		if t.Kind != yaml.MappingNode {
			continue
		}
		exprs := manifest.Value(t, "matchExpressions")
		if exprs == nil || exprs.Kind != yaml.SequenceNode {
			exprs = seq()
			manifest.Put(t, "matchExpressions", exprs)
		}
		expr := mapping(
			manifest.String("key"), manifest.String(ZoneKey),
			manifest.String("operator"), manifest.String("In"),
			manifest.String("values"), seq(c.str(name)),
		)
		if n := len(exprs.Content); n > 0 {
			matchStyle(expr, exprs.Content[n-1])
		}
		exprs.Content = append(exprs.Content, expr)
	}
}

// matchStyle writes the new expression the way the one before it was
// written (`- {key: ..., values: [...]}` or block style), so the term reads as one.
func matchStyle(expr, like *yaml.Node) {
	expr.Style = like.Style & yaml.FlowStyle
	if v := manifest.Value(like, "values"); v != nil {
		manifest.Value(expr, "values").Style = v.Style & yaml.FlowStyle
	}
}

func seq(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: items}
}

func mapping(kv ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: kv}
}
