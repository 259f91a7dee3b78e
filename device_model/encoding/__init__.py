"""Block-command encodings: form table, decoder, assembler, disassembler."""
from .assembler import Instruction, assemble, assemble_line, raw_instruction, split_program
from .decoder import Decoded, decode
from .disassembler import disassemble
from .forms import instruction_length

__all__ = ["Instruction", "assemble", "assemble_line", "raw_instruction", "split_program",
           "Decoded", "decode", "disassemble", "instruction_length"]
