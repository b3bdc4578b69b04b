;; Scores of int8 rows against an int16 query with WebAssembly SIMD: 16 codes per step, widened
;; to int16 and multiplied-and-added in pairs into four int32 lanes (i32x4.dot_i16x8_s). Rows are
;; `stride` bytes, zero-padded to a multiple of 16. Each row's four lanes are summed as float64
;; (a lane cannot overflow for the query scale local-index.ts picks; their sum might).
;; Rebuild dot-i8.wasm after editing: node scripts/build-wasm.mjs
(module
  (memory (export "memory") 1)
  ;; scores(codes, rows, stride, query, out): out[r] (float64) = Σ codes[r·stride + i] · query[i]
  (func (export "scores") (param $codes i32) (param $rows i32) (param $stride i32) (param $query i32) (param $out i32)
    (local $r i32) (local $i i32) (local $row i32) (local $acc v128) (local $c v128)
    (block $done
      (loop $each_row
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $row (i32.add (local.get $codes) (i32.mul (local.get $r) (local.get $stride))))
        (local.set $i (i32.const 0))
        (block $row_done
          (loop $each_16
            (br_if $row_done (i32.ge_u (local.get $i) (local.get $stride)))
            (local.set $c (v128.load (i32.add (local.get $row) (local.get $i))))
            (local.set $acc (i32x4.add (local.get $acc)
              (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $c))
                (v128.load (i32.add (local.get $query) (i32.shl (local.get $i) (i32.const 1)))))))
            (local.set $acc (i32x4.add (local.get $acc)
              (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $c))
                (v128.load offset=16 (i32.add (local.get $query) (i32.shl (local.get $i) (i32.const 1)))))))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br $each_16)))
        (f64.store
          (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 3)))
          (f64.add
            (f64.add (f64.convert_i32_s (i32x4.extract_lane 0 (local.get $acc))) (f64.convert_i32_s (i32x4.extract_lane 1 (local.get $acc))))
            (f64.add (f64.convert_i32_s (i32x4.extract_lane 2 (local.get $acc))) (f64.convert_i32_s (i32x4.extract_lane 3 (local.get $acc))))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $each_row)))))
