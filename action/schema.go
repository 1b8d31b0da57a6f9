package action

import "github.com/krender/krender/model/profiles/schema"

// Schema is `krender schema`, the action: the profile format as a JSON
// Schema (draft-07), for editors.
type Schema struct {
	// Rules are the finding ids check.disable accepts (the CLI passes
	// rule.IDs()): they belong to lint, which stands above action.
	Rules []string
}

// Run returns the schema's bytes.
func (s *Schema) Run() ([]byte, error) {
	return schema.Generate(s.Rules)
}
