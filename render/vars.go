package render

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/krender/krender/manifest"
	"github.com/krender/krender/redact"
	"github.com/krender/krender/subst"
)

// WriteVars lists, per template location, what substitution does with each
// reference: like `envsubst -v`, but per place and per tenant.
func (e *Engine) WriteVars(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LOCATION\tTENANT\tREFERENCE\tACTION")
	for _, u := range e.Units {
		vars := u.Vars.Map()
		for _, v := range u.Vars {
			if IsSecret(v) {
				vars[v.Name] = redact.Mask
			}
		}
		tenant := u.Tenant
		if tenant == "" {
			tenant = "-"
		}
		for _, t := range e.Templates {
			for _, oc := range subst.Substitute(t.Clone(), vars) {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", oc.Pos, tenant, oc.Text, action(oc, vars))
			}
		}
	}
	return tw.Flush()
}

// quote shows a value as Go would quote it, and a secret's mask bare.
func quote(v string) string {
	if v == redact.Mask {
		return v
	}
	return fmt.Sprintf("%q", v)
}

func action(oc manifest.Ref, vars map[string]string) string {
	switch {
	case oc.Defined && oc.Runtime != "":
		return fmt.Sprintf("substituted (%s) inside %s", quote(vars[oc.Name]), oc.Runtime)
	case oc.Defined:
		return fmt.Sprintf("substituted (%s)", quote(vars[oc.Name]))
	case oc.Runtime != "":
		return "left for run time (" + oc.Runtime + ")"
	}
	return "UNDEFINED: not in the profile (render fails)"
}
