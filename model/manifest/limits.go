package manifest

import (
	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/limits"
)

// LimitsFile is src as the limits policy reads it: its name, its bytes,
// and how a position and a go-yaml error are stated in it.
func (s *Source) LimitsFile() limits.File {
	return limits.File{Path: s.Path, Text: s.Text, PosAt: s.PosAt, ParseError: func(err error) error { return yamlError(s, err) }}
}

// CheckNodes holds an object to the nodes and depth limits of the file it
// came from. Loading checked every document; a stage that changed the
// object's tree (an injection) checks it again before the next stage
// follows its aliases.
func (o *Object) CheckNodes() *filepos.Error {
	return o.Src.Limits.NodeChecker(o.Pos).Object(o.Node, o.Kind()+" "+o.Name())
}
