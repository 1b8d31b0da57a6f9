package action

import (
	"io/fs"

	"github.com/krender/krender/model/manifest"
)

// Tenants is the tenants action: the profile's tenants in profile order,
// none for a profile without. No templates are read: the profile is
// loaded and checked as render loads it (extends, fragments), nothing else.
func Tenants(fsys fs.FS, profile string) ([]string, error) {
	e, err := Engine(fsys, Options{Profile: profile, Templates: []*manifest.Object{}})
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(e.Profile.Tenants))
	for _, t := range e.Profile.Tenants {
		names = append(names, t.Name)
	}
	return names, nil
}
