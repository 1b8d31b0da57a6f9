package testtool

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// KubectlDocs splits a YAML stream and converts each document to JSON as
// kubectl does (YAML 1.1 scalars, sigs.k8s.io/yaml); empty documents are
// left out.
func KubectlDocs(text []byte) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(text)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		js, err := sigsyaml.YAMLToJSON(doc)
		if err != nil {
			return nil, err
		}
		if string(bytes.TrimSpace(js)) != "null" {
			docs = append(docs, js)
		}
	}
}
