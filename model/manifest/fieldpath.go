package manifest

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/utils"
)

// SplitPath splits a kustomize field-spec path into keys (kyaml's splitter,
// so `\/` escapes are read the same way). It is the model's because a
// profile names fields by such paths and the stages walk them.
func SplitPath(path string) ([]string, error) {
	if path == "" {
		return nil, fmt.Errorf("hash reference needs a path (like spec/config/secretName)")
	}
	keys := utils.PathSplitter(path, "/")
	for i, k := range keys {
		k = strings.TrimSuffix(k, "[]")
		if k == "" {
			return nil, fmt.Errorf("path %q has an empty key", path)
		}
		keys[i] = k
	}
	return keys, nil
}
