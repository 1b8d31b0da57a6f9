package action

import (
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/model/manifest"
)

// Tenants is `krender tenants`, the action: the profile's tenants in
// profile order, none for a profile without. No templates are read: the
// profile is loaded and checked as render loads it (extends, fragments),
// nothing else.
type Tenants struct {
	// FS holds the profile and the files it names, paths as users type
	// them (see package userfs).
	FS filesys.Reader
	// Profile is the profile's path (-p).
	Profile string
}

// Run returns the tenants' names.
func (t *Tenants) Run() ([]string, error) {
	e, err := Engine(t.FS, Options{Profile: t.Profile, Templates: []*manifest.Object{}})
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(e.Profile.Tenants))
	for _, t := range e.Profile.Tenants {
		names = append(names, t.Name)
	}
	return names, nil
}
