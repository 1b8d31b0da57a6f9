// Package yamlemit writes a go-yaml node tree as go-yaml's Dumper does with
// krender's layout (WithV3Defaults, indent 2, sequences indented under their
// key, no line wrapping), byte for byte, straight into a byte slice.
//
// go-yaml turns every node into an event, queues the events, copies every
// value and comment into new byte slices and analyses each scalar again on
// the way out; for a render of thousands of objects that was most of
// krender's time. This package is a transcription of go-yaml v4.0.0's
// serializer, desolver and emitter (internal/libyaml) restricted to the
// trees krender prints: the same state machine, fed one event at a time
// from the tree, with nothing queued or copied. Whatever it does not
// transcribe (anchors and aliases, tags that would be printed, keys that
// are not simple scalars, values that are not UTF-8, other node kinds) it
// declines, and the caller prints that tree with go-yaml itself.
//
// Transcribed code keeps go-yaml's licenses: see NOTICE and LICENSE here.
package yamlemit
