package edit

import "testing"

// TestGutterRunBoundaries pins where a run of numbers may start (mutation
// testing found the first line's "no previous number" and a gutter
// starting at 0 undefended).
func TestGutterRunBoundaries(t *testing.T) {
	for text, want := range map[string]bool{
		"0 | a\n1 | b\n": true,  // a run may start at 0
		"1 | a\n5 | b\n": false, // the first line has no predecessor
		"2 | a\n5 | b\n": false,
		"2 | a\n3 | b\n": true,
	} {
		if got := hasGutter(text); got != want {
			t.Errorf("hasGutter(%q) = %v, want %v", text, got, want)
		}
	}
}

// A number too large to parse breaks a run like a line without one.
func TestGutterUnparsableNumberBreaksRun(t *testing.T) {
	if text := "99999999999999999999 | a\n2 | b\n9 | c\n"; hasGutter(text) {
		t.Errorf("hasGutter(%q) = true: an unparsable number counted as 1", text)
	}
}
