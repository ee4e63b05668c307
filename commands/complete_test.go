package commands

import (
	"strings"
	"testing"
)

// TestIDArgsNameRealVerbs: every verb the id completion names exists, so a
// renamed verb cannot silently lose its completion.
func TestIDArgsNameRealVerbs(t *testing.T) {
	root := NewRootForDocs()
	for path := range idArgs {
		c, rest, err := root.Find(strings.Fields(path))
		if err != nil || len(rest) > 0 || strings.TrimPrefix(c.CommandPath(), "aw ") != path {
			t.Errorf("%q is not a verb (found %v, rest %v, %v)", path, c.CommandPath(), rest, err)
			continue
		}
		if c.ValidArgsFunction == nil {
			t.Errorf("%s: no id completion", path)
		}
	}
}
