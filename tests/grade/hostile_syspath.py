# hostile: imports the reference solutions through sys.path (the test writes @ROOT@)
import sys
sys.path.insert(0, "@ROOT@/exercises/solutions")
from section_4_2 import attention_shapes, previous_token_head, fused_self_attention
