package manifest

import (
	"strings"
	"testing"
)

// TestSyntaxErrorHasOnePosition: a go-yaml syntax error is stated at one
// file:line:col, with no second position in the message: where the parser
// gave up, or where a quote or flow collection still open later was opened.
func TestSyntaxErrorHasOnePosition(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"metadata: {name: x\ndata:\n  a: b\n", "t.yaml:1:11: invalid YAML: while parsing a flow mapping that starts here: did not find expected ',' or '}'"},
		{"data: {a: b c: d}\n", "t.yaml:1:14: invalid YAML: while parsing a flow mapping: did not find expected ',' or '}'"},
		{"kind: x\ndata: {a: b}}\n", "t.yaml:2:13: invalid YAML: while parsing a block mapping: did not find expected key"},
		{"data: {a: [b, c}\n", "t.yaml:1:16: invalid YAML: while parsing a flow sequence: did not find expected ',' or ']'"},
		{"data: [a, b\nkind: x\n", "t.yaml:1:7: invalid YAML: while parsing a flow sequence that starts here: did not find expected ',' or ']'"},
		{"data:\n  a: \"b\n  c: d\n", "t.yaml:2:6: invalid YAML: while scanning a quoted scalar that starts here: found unexpected end of stream"},
		{"spec:\n  ports:\n    - port: 80\n     targetPort: http\n", "t.yaml:4:6: invalid YAML: while parsing a block collection: did not find expected '-' indicator"},
	} {
		_, err := Parse(NewSource("t.yaml", []byte(c.text)))
		if err == nil || err.Error() != c.want {
			t.Errorf("%q:\n got %v\nwant %s", c.text, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "line ") {
			t.Errorf("%q: a second position in %q", c.text, err)
		}
	}
}

// TestFlowReferenceSaysQuoteIt: an unquoted ${NAME} in a flow collection,
// which envsubst's text substitution let through, is stated at its $ with
// what to do; the same bytes quoted parse, and a flow error elsewhere on
// such a line keeps go-yaml's words.
func TestFlowReferenceSaysQuoteIt(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"metadata:\n  labels: {tier: ${TIER}}\n", "t.yaml:2:18: invalid YAML: ${TIER} inside a flow mapping {...} must be quoted (\"...${TIER}...\"): unquoted, YAML reads its { as the start of another collection"},
		{"metadata:\n  labels: {tier: a-${TIER}-b, x: y}\n", "t.yaml:2:20: invalid YAML: ${TIER} inside a flow mapping {...} must be quoted (\"...${TIER}...\"): unquoted, YAML reads its { as the start of another collection"},
		{"args: [--level=${LEVEL}, -v]\n", "t.yaml:1:16: invalid YAML: ${LEVEL} inside a flow sequence [...] must be quoted (\"...${LEVEL}...\"): unquoted, YAML reads its { as the start of another collection"},
		{"metadata: {labels: {${KEY}: a}}\n", "t.yaml:1:21: invalid YAML: ${KEY} inside a flow mapping {...} must be quoted (\"...${KEY}...\"): unquoted, YAML reads its { as the start of another collection"},
		{"data: {a: ${B\n", "t.yaml:1:11: invalid YAML: ${ inside a flow mapping {...} must be quoted (\"...${...\"): unquoted, YAML reads its { as the start of another collection"},
		{"data: {a: b${c} d: e}\n", "t.yaml:1:12: invalid YAML: ${c} inside a flow mapping {...} must be quoted (\"...${c}...\"): unquoted, YAML reads its { as the start of another collection"},
		{"data: {a: $x c: d}\n", "t.yaml:1:15: invalid YAML: while parsing a flow mapping: did not find expected ',' or '}'"},
	} {
		_, err := Parse(NewSource("t.yaml", []byte(c.text)))
		if err == nil || err.Error() != c.want {
			t.Errorf("%q:\n got %v\nwant %s", c.text, err, c.want)
		}
	}
	for _, text := range []string{"metadata:\n  labels: {tier: \"${TIER}\"}\n", "args: [\"--level=${LEVEL}\", -v]\n", "data: {a: $B}\n"} {
		if _, err := Parse(NewSource("t.yaml", []byte(text))); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
}
