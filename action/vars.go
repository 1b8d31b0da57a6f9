package action

import (
	"context"
	"fmt"
	"strconv"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/internal/mask"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/model/ruleid"
	"github.com/krender/krender/render"
	"github.com/krender/krender/render/subst"
)

// Vars is `krender vars`, the action: it lists, per template location,
// what substitution does with each reference, like `envsubst -v` but per
// place and per tenant. Values of CI's secrets, and of variables that reach
// a Secret's data, are masked in the rows it returns.
type Vars struct {
	Options
	// FS holds the templates and profiles, paths as users type them (see
	// package userfs).
	FS filesys.Reader
}

// VarsRow is one reference at one place for one tenant.
type VarsRow struct {
	Location  filepos.Pos
	Tenant    string // "" for a profile without tenants
	Reference string // as written: `$NAME` or `${NAME}`
	Reader    string // who reads the string (manifest.Ref.Reader)
	Action    string // what substitution does with it, secrets masked
}

// VarsResult is the listing.
type VarsResult struct {
	// Dialect is the profile's substitution.dialect, and where it was set
	// (or that it is the default).
	Dialect string
	// Rows are the references, unit by unit, template by template.
	Rows []VarsRow
}

// Run returns the listing; ctx stops the reading and the references'
// rendering, in place of Options.Context.
func (v *Vars) Run(ctx context.Context) (*VarsResult, error) {
	o := v.Options
	o.Context = ctx
	e, err := Engine(v.FS, o)
	if err != nil {
		return nil, err
	}
	res := &VarsResult{Dialect: profiles.DialectEnvsubst + " (the default)"}
	if d := e.Profile.Substitution.Dialect; d.Value != "" {
		res.Dialect = d.Value + " (" + d.Pos.String() + ")"
	}
	if res.Rows, err = varsRows(e); err != nil {
		return nil, err
	}
	return res, nil
}

// varsRows lists the references of e's units.
func varsRows(e *render.Engine) ([]VarsRow, error) {
	var rows []VarsRow
	for _, u := range e.Units {
		vars := u.Vars.Map()
		for _, v := range u.Vars {
			if IsSecret(v) {
				vars[v.Name] = mask.Mask
			}
		}
		var all [][]manifest.Ref
		for _, t := range e.Templates {
			refs, err := e.References(u, t, vars)
			if err != nil {
				return nil, err
			}
			all = append(all, refs)
			for _, oc := range refs {
				rows = append(rows, VarsRow{Location: oc.Pos, Tenant: u.Tenant, Reference: oc.Text, Reader: oc.Reader, Action: action(oc, vars, e.SecretVar, e.Profile.Substitution.DialectOf())})
			}
		}
		for _, un := range e.Unused(u, all...) {
			rows = append(rows, VarsRow{Location: un.Pos, Tenant: u.Tenant, Reference: un.Name, Reader: "-", Action: unusedAction(un)})
		}
	}
	return rows, nil
}

// quote shows a value as Go would quote it, and a secret's mask bare.
func quote(v string) string {
	if v == mask.Mask {
		return v
	}
	return strconv.Quote(v)
}

// unusedAction says what becomes of a variable no template references.
func unusedAction(u subst.Unused) string {
	if u.Mistake() {
		return "unused, with a warning: no template references it" + u.Hint + " [" + ruleid.UnusedVar + "]"
	}
	return "unused: no template of this render references it" + u.Hint
}

// action says what becomes of one reference, as vars lists it.
func action(oc manifest.Ref, vars map[string]string, secret func(string) bool, dialect string) string {
	value := shownValue(oc, vars, secret)
	switch {
	case oc.Escaped && oc.Kept == "":
		return "escape: written as $ (dialect " + dialect + ")"
	case oc.Kept != "" && oc.Defined:
		return "not substituted (" + oc.Kept + ")"
	case oc.Kept != "":
		return "left as written (" + oc.Kept + ")"
	case oc.Applied:
		return fmt.Sprintf("default %q written (%s is not defined)", oc.Word, oc.Name)
	case oc.Defined && oc.Runtime != "":
		return fmt.Sprintf("substituted (%s) inside %s", value, oc.Runtime)
	case oc.Defined:
		return fmt.Sprintf("substituted (%s)", value)
	}
	return undefinedAction(oc)
}

// shownValue is what a reference writes as vars shows it: what its
// expression wrote, else the variable's value, and a secret's mask.
func shownValue(oc manifest.Ref, vars map[string]string, secret func(string) bool) string {
	value := quote(vars[oc.Name])
	if oc.Written != "" {
		value = quote(oc.Written)
	}
	if secret(oc.Name) {
		value = mask.Mask
	}
	return value
}

// undefinedAction says what becomes of a reference krender neither keeps
// nor substitutes: its verdict, or run time's.
func undefinedAction(oc manifest.Ref) string {
	switch {
	case oc.Verdict == manifest.Wrong:
		return "ERROR: " + oc.Problem + " (render fails)"
	case oc.Verdict == manifest.Questioned:
		return "left as written, with a warning (unknown reader: declare it without a value, or substitution.strict, to make it an error)"
	case oc.Verdict == manifest.TypoWarning:
		return "left for run time (" + oc.Runtime + "); check warns: " + oc.Problem
	case oc.Runtime != "":
		return "left for run time (" + oc.Runtime + ")"
	}
	return "left as written (no upper-case letter: not a deploy-time name)"
}
