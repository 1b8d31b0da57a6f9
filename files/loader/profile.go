package loader

import (
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/loadroot"
	"github.com/krender/krender/files/userfs"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
)

// Profile reads the profile at path and the files it extends, each within
// root (its Check; nil: anywhere) and the default file-size limit.
func Profile(fsys filesys.Reader, root *loadroot.Root, path string) (*profiles.Profile, error) {
	return loadProfile(fsys, path, root.Check)
}

// Fragments is how the profile's injection fragments are read: within
// its file-size limit.
func Fragments(fsys filesys.Reader, p *profiles.Profile) func(string) ([]byte, error) {
	return userfs.ReadLimited(fsys, p.Limits.OrDefault().FileBytes)
}

// CRDs reads the profile's check.crds and the given files or directories
// (--crds), so that render and check read custom resources alike. A given
// path must not be a link leading out of the root.
func CRDs(fsys filesys.Reader, root *loadroot.Root, p *profiles.Profile, given []string) ([]*manifest.Object, error) {
	var paths []string
	for _, c := range p.Check.CRDs {
		paths = append(paths, c.Value)
	}
	for _, c := range given {
		if err := root.CheckGiven("CRD file", c); err != nil {
			return nil, err
		}
	}
	if len(paths)+len(given) == 0 {
		return nil, nil
	}
	return LoadManifests(fsys, root, "CRD file", append(paths, given...))
}
