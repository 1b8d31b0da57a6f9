package profiles

// Merge layers a later profile's hash section over an earlier one: a mode
// set later wins, and references add up (a later entry for the same kind,
// group and path replaces the earlier), so an environment can change the
// mode without repeating the CRD paths its base declared.
func (h Hash) Merge(over Hash) Hash {
	out := Hash{Mode: h.Mode, References: append([]HashReference(nil), h.References...)}
	if over.Mode.Value != "" {
		out.Mode = over.Mode
	}
	for _, r := range over.References {
		replaced := false
		for i, e := range out.References {
			if e.Kind.Value == r.Kind.Value && e.Group.Value == r.Group.Value && e.Path.Value == r.Path.Value {
				out.References[i], replaced = r, true
			}
		}
		if !replaced {
			out.References = append(out.References, r)
		}
	}
	return out
}
