package render

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/krender/krender/filepos"
	"github.com/krender/krender/manifest"
)

// Result is what a run produced besides the manifests: notes for stderr,
// deduplicated across tenants.
type Result struct {
	Notes []filepos.Note
}

func (r *Result) add(s *manifest.Set) {
	seen := map[string]bool{}
	for _, n := range r.Notes {
		seen[n.String()] = true
	}
	for _, n := range s.Notes {
		if !seen[n.String()] {
			seen[n.String()] = true
			r.Notes = append(r.Notes, n)
		}
	}
}

// Each renders every unit in order and hands each set to f.
func (e *Engine) Each(f func(*manifest.Set) error) (*Result, error) {
	res := &Result{}
	for _, u := range e.Units {
		s, err := e.Render(u)
		if err != nil {
			return nil, inTenant(err, u.Tenant)
		}
		res.add(s)
		if err := f(s); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// WriteStream renders everything as one multi-document stream. Output is held
// back (in memory, spilling to a temporary file when large) until the whole
// render has succeeded, so a failure never leaves half a stream in a pipe
// to kubectl.
func (e *Engine) WriteStream(w io.Writer) (*Result, error) {
	sp := &spool{}
	defer sp.Close()
	enc := manifest.NewEncoder(sp)
	res, err := e.Each(func(s *manifest.Set) error {
		for _, o := range s.Objects {
			if err := enc.Encode(o); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := enc.Flush(); err != nil {
		return nil, err
	}
	return res, sp.CopyTo(w)
}

// ObjectFile is where -o DIR puts an object: <tenant>/<kind>-<name>.yaml,
// with the name as written (before a content hash).
func ObjectFile(tenant string, o *manifest.Object) string {
	base := o.Name()
	if o.BaseName != "" {
		base = o.BaseName
	}
	name := sanitize(strings.ToLower(o.Kind())) + "-" + sanitize(base) + ".yaml"
	if tenant == "" {
		return name
	}
	return filepath.Join(sanitize(tenant), name)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func sanitize(s string) string {
	s = unsafeName.ReplaceAllString(s, "_")
	if s == "" || s == "." || s == ".." {
		return "_"
	}
	return s
}

// Files renders everything as one file per object, keyed by relative path.
func (e *Engine) Files() (map[string][]byte, []string, *Result, error) {
	files := map[string][]byte{}
	var order []string
	from := map[string]filepos.Pos{}
	res, err := e.Each(func(s *manifest.Set) error {
		for _, o := range s.Objects {
			name := ObjectFile(s.Tenant, o)
			if prev, dup := from[name]; dup {
				return filepos.Errorf(o.Pos(o.Node), "%s %q is rendered twice into %s (first from %s); names must be unique per tenant",
					o.Kind(), o.Name(), name, prev)
			}
			from[name] = o.Pos(o.Node)
			b, err := manifest.Marshal([]*manifest.Object{o})
			if err != nil {
				return err
			}
			files[name] = b
			order = append(order, name)
		}
		return nil
	})
	return files, order, res, err
}

// WriteDir writes one file per object under dir, atomically: into a
// temporary sibling directory that replaces dir only when all succeeded.
func (e *Engine) WriteDir(dir string) (*Result, error) {
	files, order, res, err := e.Files()
	if err != nil {
		return nil, err
	}
	return res, ReplaceDir(dir, files, order)
}

// ReplaceDir makes dir hold exactly files, swapping it in with renames.
func ReplaceDir(dir string, files map[string][]byte, order []string) error {
	dir = filepath.Clean(dir)
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".new-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, name := range order {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	old := ""
	if _, err := os.Stat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			_ = os.Rename(old, dir)
		}
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// spool keeps output in memory up to a limit, then in a temporary file.
type spool struct {
	buf  bytes.Buffer
	file *os.File
}

const spoolMemory = 32 << 20

func (s *spool) Write(p []byte) (int, error) {
	if s.file == nil && s.buf.Len()+len(p) > spoolMemory {
		f, err := os.CreateTemp("", "krender-*.yaml")
		if err != nil {
			return 0, err
		}
		s.file = f
		if _, err := s.buf.WriteTo(f); err != nil {
			return 0, err
		}
	}
	if s.file != nil {
		return s.file.Write(p)
	}
	return s.buf.Write(p)
}

func (s *spool) CopyTo(w io.Writer) error {
	if s.file == nil {
		_, err := s.buf.WriteTo(w)
		return err
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(w, s.file)
	return err
}

func (s *spool) Close() {
	if s.file != nil {
		s.file.Close()
		os.Remove(s.file.Name())
	}
}

// inTenant says which tenant an error arose in, after each message so that
// lines still start with the template position.
func inTenant(err error, tenant string) error {
	if tenant == "" {
		return err
	}
	suffix := " (tenant " + tenant + ")"
	switch e := err.(type) {
	case *filepos.Error:
		return &filepos.Error{Pos: e.Pos, Msg: e.Msg + suffix}
	case filepos.List:
		out := make(filepos.List, len(e))
		for i, x := range e {
			out[i] = &filepos.Error{Pos: x.Pos, Msg: x.Msg + suffix}
		}
		return out
	}
	return fmt.Errorf("tenant %s: %w", tenant, err)
}
