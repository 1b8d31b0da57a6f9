package action

import (
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"text/tabwriter"

	"github.com/krender/krender/internal/mask"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/render"
)

// Vars is the vars action: it lists, per template location, what
// substitution does with each reference, like `envsubst -v` but per place
// and per tenant. Values of CI's secrets, and of variables that reach a
// Secret's data, are masked.
func Vars(fsys fs.FS, o Options, w io.Writer) error {
	e, err := Engine(fsys, o)
	if err != nil {
		return err
	}
	return WriteVars(e, w)
}

// WriteVars prints the vars table of e's units.
func WriteVars(e *render.Engine, w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LOCATION\tTENANT\tREFERENCE\tREADER\tACTION")
	for _, u := range e.Units {
		vars := u.Vars.Map()
		for _, v := range u.Vars {
			if IsSecret(v) {
				vars[v.Name] = mask.Mask
			}
		}
		tenant := u.Tenant
		if tenant == "" {
			tenant = "-"
		}
		for _, t := range e.Templates {
			refs, err := e.References(u, t, vars)
			if err != nil {
				return err
			}
			for _, oc := range refs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", oc.Pos, tenant, oc.Text, oc.Reader, action(oc, vars, e.SecretVar))
			}
		}
	}
	return tw.Flush()
}

// quote shows a value as Go would quote it, and a secret's mask bare.
func quote(v string) string {
	if v == mask.Mask {
		return v
	}
	return strconv.Quote(v)
}

func action(oc manifest.Ref, vars map[string]string, secret func(string) bool) string {
	value := quote(vars[oc.Name])
	if secret(oc.Name) {
		value = mask.Mask
	}
	switch {
	case oc.Escaped && oc.Kept == "":
		return "escaped: written as " + oc.Text[1:] + " ($${ is the escape of Flux, clusterctl and docker compose)"
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
