package action

import (
	"context"

	"github.com/krender/krender/model/profiles/schema"
)

// Schema is `krender schema`, the action: the profile format as a JSON
// Schema (draft-07), for editors.
type Schema struct {
	// Rules are the finding ids check.disable accepts (the CLI passes
	// rule.IDs()): they belong to lint, which stands above action.
	Rules []string
}

// SchemaResult is the profile format as a JSON Schema.
type SchemaResult struct {
	// JSON is the schema's text, as `krender schema` prints it.
	JSON []byte
}

// Run returns the schema; a context already done returns its cause.
func (s *Schema) Run(ctx context.Context) (*SchemaResult, error) {
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	b, err := schema.Generate(s.Rules)
	if err != nil {
		return nil, err
	}
	return &SchemaResult{JSON: b}, nil
}
