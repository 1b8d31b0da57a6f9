package profiles

// Merge layers a later profile's hash section over an earlier one: a mode
// set later wins, and references add up (a later entry for the same kind,
// group and path replaces the earlier), so an environment can change the
// mode without repeating the CRD paths its base declared.
func (h Hash) Merge(over Hash) Hash {
	out := Hash{Mode: h.Mode, References: mergeFieldSpecs(h.References, over.References,
		func(r HashReference) [3]string { return [3]string{r.Kind.Value, r.Group.Value, r.Path.Value} })}
	if over.Mode.Value != "" {
		out.Mode = over.Mode
	}
	out.GC = h.GC
	if over.GC != nil {
		out.GC = over.GC
	}
	return out
}

// mergeFieldSpecs adds a later file's field specs to an earlier one's; an
// entry with the same kind, group and path (key) replaces the earlier.
func mergeFieldSpecs[T any](base, over []T, key func(T) [3]string) []T {
	out := append([]T(nil), base...)
	for _, f := range over {
		replaced := false
		for i, e := range out {
			if key(e) == key(f) {
				out[i], replaced = f, true
			}
		}
		if !replaced {
			out = append(out, f)
		}
	}
	return out
}
