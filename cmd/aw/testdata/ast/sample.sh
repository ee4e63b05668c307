#!/bin/sh
# rm -rf x in a comment
rm -rf "$dir"
echo "rm -rf x"
f() { echo one two; }
f
