module github.com/ntksvm/ntksvm/asm/_gen

go 1.24.0
