// Package gc is `krender gc`, the action: its flags' rules, the load root,
// the profile's reference fields read into the hash stage's table, then the
// cluster's owners planned and set. The planner is package cluster/gc, and
// the lists and patches are package cluster/client's, which only
// krender-check links: gc runs no engine.
package gc

import (
	"context"
	"fmt"
	"slices"

	gcplan "github.com/krender/krender/cluster/gc"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/loader"
	"github.com/krender/krender/files/loadroot"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/render/contenthash"
)

// Collector lists, plans and (unless o.DryRun) patches the cluster, and
// returns the report; it prints nothing. krender-check links one
// (cluster/client.Run); krender has none and hands the command over.
type Collector func(ctx context.Context, o gcplan.Options) (*gcplan.Report, error)

// Collect is `krender gc`, the action: the flags checked, the hash stage's
// reference table built, with the profile's fields when one is given, then
// the Collector run with it.
type Collect struct {
	gcplan.Options
	// Output is -o: text or json, the formats of gcplan.Report.Write.
	Output string
	// Profile is the profile whose hash.references name custom workloads'
	// reference fields (-p); "": the built-in ones only.
	Profile string
	// FS holds the profile and the files it names, paths as users type
	// them (see package userfs).
	FS filesys.Reader
	// RootDir (--root) and LoadRestrictor (--load-restrictor) say where
	// the profile must lie (see package loadroot); "": the default root of
	// FS, and rootOnly. Read only with a Profile.
	RootDir, LoadRestrictor string
	// Collector lists and patches the cluster: cluster/client.Run, which
	// only krender-check links.
	Collector Collector
}

// Result is what a run gives the command line to print.
type Result struct {
	// Report is what gc did, or under DryRun would do: the command line
	// writes it as Output asks (Report.Write). Its Missing are the hashed
	// names that what is applied names and the cluster lacks: the command
	// line warns of each, and exits with its own status (docs/gc.md).
	Report *gcplan.Report
}

// Check refuses flags that do not go together, before anything is read or
// a cluster asked: the command line calls it before it hands the command to
// krender-check, and Run calls it first.
func (c *Collect) Check() error {
	if c.Output != "text" && c.Output != "json" {
		return fmt.Errorf("-o %q: want text or json", c.Output)
	}
	if c.AllNamespaces && c.Namespace != "" {
		return fmt.Errorf("-n %s and -A: give one (a namespace, or all of them)", c.Namespace)
	}
	return nil
}

// Run checks the flags, builds the table and collects. It prints nothing.
func (c *Collect) Run(ctx context.Context) (*Result, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	o, err := c.withTable()
	if err != nil {
		return nil, err
	}
	r, err := c.Collector(ctx, o)
	if err != nil {
		return nil, err
	}
	return &Result{Report: r}, nil
}

// withTable is the Options with the hash stage's reference table and the
// kinds the profile's fields are on.
func (c *Collect) withTable() (gcplan.Options, error) {
	o := c.Options
	var hash profiles.Hash
	if c.Profile != "" {
		root, err := c.root()
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
			o.Custom = append(o.Custom, gcplan.Kind{Group: r.Group.Value, Kind: r.Kind.Value})
		}
	}
	st, err := contenthash.New(hash)
	if err != nil {
		return o, err
	}
	o.Table = st.References()
	return o, nil
}

// root is where the profile must lie: RootDir, else the default root that
// follows the profile (loadroot.New), under LoadRestrictor's mode.
func (c *Collect) root() (*loadroot.Root, error) {
	mode, err := loadroot.ParseMode(c.LoadRestrictor)
	if err != nil {
		return nil, err
	}
	return loadroot.New(c.FS, c.RootDir, mode, c.Profile)
}
