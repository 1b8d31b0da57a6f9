package loader

import (
	"path/filepath"
	"strings"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/userfs"
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/limits"
	"github.com/krender/krender/model/profiles"
)

// loadProfile reads the profile at path and every file it extends from
// fsys, each path the profile names passed by guard first.
func loadProfile(fsys filesys.Reader, path string, guard profiles.Guard) (*profiles.Profile, error) {
	l := &profileLoader{fsys: fsys, read: userfs.ReadLimited(fsys, limits.Defaults().FileBytes), guard: guard}
	p := profiles.New()
	if err := l.load(p, path, nil, filepos.Pos{}); err != nil {
		return nil, err
	}
	if err := p.CheckUnused(); err != nil {
		return nil, err
	}
	return p, nil
}

// profileLoader follows a profile's extends chain, base first.
type profileLoader struct {
	fsys  filesys.Reader
	read  func(path string) ([]byte, error)
	guard profiles.Guard
}

// MaxExtends bounds an extends chain; profiles are read before any
// profile could raise a limit, so this one is fixed.
const MaxExtends = 32

func (l *profileLoader) load(p *profiles.Profile, path string, chain []string, from filepos.Pos) error {
	if len(chain) >= MaxExtends {
		return filepos.Errorf(from, "extends chain longer than %d profiles (a fixed limit; see docs/limits.md)", MaxExtends)
	}
	abs, err := userfs.Abs(l.fsys, path) // the key of a profile in the chain
	if err != nil {
		return filepos.Errorf(from, "%v", err)
	}
	for _, c := range chain {
		if c == abs {
			return filepos.Errorf(from, "extends cycle: %s", cycle(chain, abs))
		}
	}
	chain = append(chain, abs)
	text, err := l.read(path)
	if err != nil {
		if from.IsKnown() {
			return filepos.Errorf(from, "cannot read profile %s: %v", path, filepos.FileError(err))
		}
		return filepos.Errorf(filepos.Pos{File: path}, "cannot read profile: %v", filepos.FileError(err))
	}
	doc, err := profiles.Decode(path, text)
	if err != nil {
		return err
	}
	if doc.Extends.Value != "" {
		base := profiles.BesideFile(path, doc.Extends.Value)
		if err := l.guard("extends", base, doc.Extends.Pos); err != nil {
			return err
		}
		if err := l.load(p, base, chain, doc.Extends.Pos); err != nil {
			return err
		}
	}
	return p.Apply(path, doc, l.guard)
}

func cycle(chain []string, again string) string {
	var names []string
	for _, c := range chain {
		names = append(names, filepath.Base(c))
	}
	return strings.Join(append(names, filepath.Base(again)), " -> ")
}
