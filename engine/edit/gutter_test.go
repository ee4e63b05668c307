package edit

import "testing"

func TestGutter(t *testing.T) {
	cases := []struct {
		name string
		text string
		want bool
	}{
		{"aw read output", "     1\tpackage main\n     2\t\n     3\tfunc main() {}\n", true},
		{"seed form", "12 | a := 1\n13 | b := 2\n", true},
		{"seed form, empty gutter line", "12 | a\n13 |\n14 | b\n", true},
		{"single numbered line", "12 | a := 1\n", false},
		{"markdown table", "| a | b |\n|---|---|\n| 1 | 2 |\n", false},
		{"descending", "3 | c\n2 | b\n1 | a\n", false},
		{"sparse", "1 | a\n5 | b\n9 | c\n", false},
		{"stepped", "10 | a\n20 | b\n30 | c\n", false},
		{"minority numbered", "1 | a\n2 | b\nx\ny\nz\n", false},
		{"exact half is not a majority", "1 | a\n2 | b\nx\ny\n", false},
		{"consecutive numeric column", "1 | a\n2 | b\n3 | c\n", true},
		{"ascending but not adjacent", "1 | a\n\n2 | b\n", false},
		{"plain code", "a := b | c\nx := 1\n", false},
	}
	for _, tc := range cases {
		if got := hasGutter(tc.text); got != tc.want {
			t.Errorf("%s: hasGutter = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := stripGutter("     1\tfoo\n     2\tbar"); got != "foo\nbar" {
		t.Errorf("stripGutter = %q", got)
	}
	if got := stripGutter("12 | foo"); got != "foo" {
		t.Errorf("stripGutter seed form = %q", got)
	}
}
