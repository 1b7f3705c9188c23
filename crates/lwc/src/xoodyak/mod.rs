//! placeholder: filled by the xoodyak work
