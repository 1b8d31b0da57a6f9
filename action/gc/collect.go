package gc

import (
	"context"
	"io"
	"slices"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/loader"
	"github.com/krender/krender/files/loadroot"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/render/contenthash"
)

// Collect is `krender gc`, the action: the hash stage's reference table
// built, with the profile's fields when one is given, then the Collector
// run with it.
type Collect struct {
	Options
	// Profile is the profile whose hash.references name custom workloads'
	// reference fields (-p); "": the built-in ones only.
	Profile string
	// FS holds the profile and the files it names, paths as users type
	// them (see package userfs).
	FS filesys.Reader
	// Root is where the profile must lie (--root, --load-restrictor); nil:
	// the default root of FS.
	Root *loadroot.Root
	// Collector lists and patches the cluster: cluster.Run, which only
	// krender-check links.
	Collector Collector
}

// Run builds the table and collects, the report written to stdout.
func (c *Collect) Run(ctx context.Context, stdout io.Writer) error {
	o, err := c.withTable()
	if err != nil {
		return err
	}
	return c.Collector(ctx, o, stdout)
}

// withTable is the Options with the hash stage's reference table and the
// kinds the profile's fields are on.
func (c *Collect) withTable() (Options, error) {
	o := c.Options
	var hash profiles.Hash
	if c.Profile != "" {
		root, err := action.Root(c.FS, c.Root, c.Profile)
		if err != nil {
			return o, err
		}
		p, err := loader.Profile(c.FS, root, c.Profile)
		if err != nil {
			return o, err
		}
		hash = p.Hash
		o.Custom = slices.Clip(o.Custom)
		for _, r := range hash.References {
			o.Custom = append(o.Custom, Kind{Group: r.Group.Value, Kind: r.Kind.Value})
		}
	}
	st, err := contenthash.New(hash)
	if err != nil {
		return o, err
	}
	o.Table = st.References()
	return o, nil
}
