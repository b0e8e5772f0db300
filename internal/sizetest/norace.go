//go:build !race

package sizetest

const race = false
