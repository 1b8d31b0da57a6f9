package action

import (
	"context"

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

// TenantsResult is the profile's tenants.
type TenantsResult struct {
	// Names are the tenants' names in profile order, none for a profile
	// without tenants.
	Names []string
}

// Run returns the tenants; ctx stops the loading, and a context already
// done returns its cause.
func (t *Tenants) Run(ctx context.Context) (*TenantsResult, error) {
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	e, err := Engine(t.FS, Options{Profile: t.Profile, Templates: []*manifest.Object{}, Context: ctx})
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(e.Profile.Tenants))
	for _, t := range e.Profile.Tenants {
		names = append(names, t.Name)
	}
	return &TenantsResult{Names: names}, nil
}
