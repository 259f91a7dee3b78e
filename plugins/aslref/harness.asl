// pto-avs harness: runs pto-avs vector cases on the executable PTO spec.
// Written for pto-avs (plugins/aslref); appended after the spec's assembled ASL.
// Every function here only calls the spec's own state, execution and
// direct-call contract functions; the case functions and main are generated
// per batch by plugins/aslref/program.py.

// --- initial state -----------------------------------------------------------

func AVSSetGPR(index: GPRIndex, value: Word)
begin
    // The vector's `gprs` are PE 0's file (the file ReadGPR reads with
    // _CurrentMemoryAgent 0); PE 1..3 keep their reset zeros unless the
    // vector's `pe_gprs` give them values (AVSSetPEGPR).
    WritePEGPR(0, index, value);
end;

// Writes one PE's private GPR (the vector's `gprs` are PE 0's file, its
// `pe_gprs` the files of PE 1..3).
func AVSSetPEGPR(pe: MemoryAgentId, index: GPRIndex, value: Word)
begin
    WritePEGPR(pe, index, value);
end;

// Writes count (1..8) bytes of value, little-endian, from address on through
// the spec's WriteMemoryByte (set-up: no event, no fault, no reservation).
func AVSSetMemory(address: integer {0..65535}, value: Word,
                  count: integer {1..8})
begin
    for byte_index = 0 to count - 1 do
        WriteMemoryByte(Zeros{PTO_XLEN} + (address + byte_index),
            value[(byte_index * 8) +: 8]);
    end;
end;

// Shared tile S<shared> from the tile just configured and written in the
// scratch local register: the scratch register gets back the state it had
// (saved, saved_mask), then the snapshot is installed with the spec's
// AtomicUpdateSharedTile under the allocation mask.
func AVSInstallSharedTile(shared: bits(8), scratch: TileIndex, mask: bits(4),
                          saved: TileInfo, saved_mask: bits(4)) => boolean
begin
    let snapshot = _Tiles[[scratch]];
    _Tiles[[scratch]] = saved;
    _TileAllocationMasks[[scratch]] = saved_mask;
    if !AtomicUpdateSharedTile(shared, snapshot, mask) then
        println "Z AtomicUpdateSharedTile refused shared tile ", UInt(shared);
        return FALSE;
    end;
    return TRUE;
end;

func AVSConfigureTile(index: TileIndex, capacity: integer {0..262144},
                      columns: integer {0..65535},
                      valid_rows: integer {0..65535},
                      valid_columns: integer {0..65535},
                      data_type: TileDataType, layout: TileLayout,
                      location: TileLocation, mask: bits(4))
begin
    ConfigureTileForMask(index, capacity,
        DerivedTileRows(capacity, columns, data_type), columns,
        valid_rows, valid_columns, data_type, layout, location, mask);
end;

func AVSConfigureCubeTile(index: TileIndex, capacity: integer {0..262144},
                          valid_rows: integer {0..65535},
                          valid_columns: integer {0..65535},
                          data_type: TileDataType, layout: TileLayout,
                          location: TileLocation, mask: bits(4)) => boolean
begin
    if !ConfigureCubeTileForMask(index, capacity, valid_rows, valid_columns,
            data_type, layout, location, mask) then
        println "Z ConfigureCubeTileForMask refused tile ", index;
        return FALSE;
    end;
    return TRUE;
end;

func AVSConfigurePredicateTile(index: TileIndex, capacity: integer {0..262144},
                               rows: integer {0..65535},
                               columns: integer {0..65535},
                               valid_rows: integer {0..65535},
                               valid_columns: integer {0..65535},
                               mask: bits(4))
begin
    ConfigurePredicateTileForMask(index, capacity, rows, columns, valid_rows,
        valid_columns, mask);
end;

// Writes one predicate bit at a logical coordinate. A defined bit of the
// valid region goes through WriteTilePredicateBit; a padding bit or an
// undefined one is stored the way PredicateTileWithPadding stores padding
// (payload bit and defined_elements), leaving the valid-region count alone.
func AVSPutPredicate(index: TileIndex, row: integer {0..65535},
                     column: integer {0..65535}, value: boolean,
                     defined: boolean)
begin
    let tile = _Tiles[[index]];
    if defined && row < tile.valid_rows && column < tile.valid_columns then
        WriteTilePredicateBit(index, row, column, value);
    else
        let logical = TilePredicateLogicalIndex(tile, row, column);
        let byte_index = TilePredicateByteIndex(logical);
        let bit_index = TilePredicateBitIndex(logical);
        _Tiles[[index]].payload[[byte_index]][bit_index] =
            if value then '1' else '0';
        _Tiles[[index]].defined_elements[logical] =
            if defined then '1' else '0';
    end;
end;

// Writes one Word at a logical coordinate; defined or only stored (undefined).
func AVSPut(index: TileIndex, row: integer {0..65535},
            column: integer {0..65535}, value: Word, defined: boolean)
begin
    if defined then
        WriteTileElement(index, row, column, value);
    else
        let tile = _Tiles[[index]];
        _Tiles[[index]] = TileInfoWithLogicalElementAndDefined(tile,
            TileLogicalLinearIndex(tile, row, column), value, FALSE);
    end;
end;

// Defines every coordinate of rows x columns (a negative bound: the tile's
// own rows or columns) with value inside the valid region and 0 outside.
func AVSDefine(index: TileIndex, rows: integer, columns: integer, value: Word)
begin
    let row_bound = if rows < 0 then _Tiles[[index]].rows else rows;
    let column_bound = if columns < 0 then _Tiles[[index]].columns else columns;
    let valid_rows = _Tiles[[index]].valid_rows;
    let valid_columns = _Tiles[[index]].valid_columns;
    for row = 0 to row_bound - 1 do
        for column = 0 to column_bound - 1 do
            let inside = row < valid_rows && column < valid_columns;
            WriteTileElement(index, row as integer {0..65535},
                column as integer {0..65535},
                if inside then value else Zeros{PTO_XLEN});
        end;
    end;
end;

// Stores value (undefined) over the valid region.
func AVSStoreValid(index: TileIndex, value: Word)
begin
    for row = 0 to _Tiles[[index]].valid_rows - 1 do
        for column = 0 to _Tiles[[index]].valid_columns - 1 do
            AVSPut(index, row as integer {0..65535},
                column as integer {0..65535}, value, FALSE);
        end;
    end;
end;

// --- program -----------------------------------------------------------------

// One instruction word through the spec's total encoded-instruction entry
// point (a command form goes to ExecuteCommandInstruction).
func AVSStep(step: integer, word: Word,
             length: integer {16,32,48,64}) => boolean
begin
    if ExecutePTOInstruction(word, length) == PTOInstruction_Executed then
        return TRUE;
    end;
    println "X ", step, " ", _LastFault;
    return FALSE;
end;

// A direct call whose contract precondition (the operation's operand
// legality) does not hold faults as its bundle would: Fault_TileLegality.
func AVSDirectRejected(step: integer) => boolean
begin
    println "X ", step, " Fault_TileLegality direct-call operand legality";
    return FALSE;
end;

func AVSSetDataAttributes(data_type: bits(5), layout: bits(5), pad: bits(2),
                          rounding: bits(3), saturating: boolean,
                          canonicalize: boolean) => boolean
begin
    SetBundleDataAttributeState(data_type, layout, pad, Zeros{3}, rounding,
        saturating, canonicalize);
    _BundleDataAttributesPresent = TRUE;
    return _LastFault == Fault_None;
end;

func AVSControl(rounding: NumericRoundingMode,
                saturating: boolean) => NumericExecutionControl
begin
    return NumericExecutionControl {
        rounding_mode = rounding,
        saturating = saturating
    };
end;

func AVSDirectTCVT(step: integer, destination: TileIndex, source: TileIndex,
                   data_type: bits(5), use_destination_type: boolean,
                   layout: bits(5), pad: bits(2), rounding_code: bits(3),
                   rounding: NumericRoundingMode, use_default: boolean,
                   saturating: boolean, canonicalize: boolean) => boolean
begin
    let saved_present = _BundleDataAttributesPresent;
    let saved = _BundleDataAttributes;
    let selected_type = if use_destination_type then
        TileDataTypeToEncoding(_Tiles[[destination]].data_type) else data_type;
    var legal = AVSSetDataAttributes(selected_type, layout, pad,
        rounding_code, saturating, canonicalize);
    var control = AVSControl(rounding, saturating);
    if use_default then
        control.rounding_mode = InstructionContractDefaultRounding_TCVT(
            _Tiles[[source]].data_type, _Tiles[[destination]].data_type);
    end;
    legal = legal && TileOperandsLegal_TCVT(destination, source, control);
    if legal then
        InstructionContractExecute_TCVT(destination, source, control);
    end;
    _BundleDataAttributesPresent = saved_present;
    _BundleDataAttributes = saved;
    return legal || AVSDirectRejected(step);
end;

func AVSDirectTQUANT(step: integer, destination: TileIndex, source: TileIndex,
                     multiplier: Word, zero_point: Word,
                     rounding: NumericRoundingMode,
                     saturating: boolean) => boolean
begin
    let control = AVSControl(rounding, saturating);
    if !InstructionContractOperandsLegal_TQUANT(destination, source,
            multiplier, zero_point, control) then
        return AVSDirectRejected(step);
    end;
    InstructionContractExecute_TQUANT(destination, source, multiplier,
        zero_point, control);
    return TRUE;
end;

func AVSDirectTGEMV_MX_ACC(step: integer, destination: TileIndex,
                           accumulator: TileIndex, left: TileIndex,
                           left_scale: TileIndex, right: TileIndex,
                           right_scale: TileIndex, left_type: bits(5),
                           use_left_tile_type: boolean, right_type: bits(5),
                           right_type_present: boolean) => boolean
begin
    let saved_operation = _BundleOperation;
    let saved_present = _BundleDataAttributesPresent;
    let saved = _BundleDataAttributes;
    let saved_fixed_point = _BundleFixedPointAttributes;
    var legal = TRUE;
    _BundleDataAttributesPresent = FALSE;
    _BundleFixedPointAttributes.valid = FALSE;
    if right_type_present then
        legal = AVSSetDataAttributes(right_type, Zeros{5}, '00', Zeros{3},
            FALSE, FALSE);
    end;
    // The operation descriptor a BSTART of TGEMV_MX_ACC installs (selector 22).
    InstallBundleOperationDescriptor(BundleOperationDescriptor {
        valid = TRUE,
        form_identity = Zeros{7},
        operation_class = BundleOperation_TileMatrix,
        selector_valid = TRUE,
        selector = Zeros{10} + 22,
        data_type_valid = TRUE,
        data_type = if use_left_tile_type then
            TileDataTypeToEncoding(_Tiles[[left]].data_type) else left_type,
        mode_valid = FALSE,
        mode = Zeros{2},
        branch_type_valid = FALSE,
        branch_type = Zeros{3}
    });
    legal = legal && InstructionContractOperandsLegal_TGEMV_MX_ACC(
        destination, accumulator, left, left_scale, right, right_scale);
    if legal then
        TGEMV_MX_ACC(destination, accumulator, left, left_scale, right,
            right_scale);
    end;
    _BundleOperation = saved_operation;
    _BundleDataAttributesPresent = saved_present;
    _BundleDataAttributes = saved;
    _BundleFixedPointAttributes = saved_fixed_point;
    return legal || AVSDirectRejected(step);
end;

// A direct CUBE call other than TGEMV_MX_ACC: the descriptor a BSTART of the function
// installs (selector ``function``), B.DATR only when BType is given, no B.FPATR; then the
// operation's InstructionContractOperandsLegal and its semantic handler.
func AVSDirectCube(step: integer, function: integer, destination: TileIndex,
                   accumulator: TileIndex, left: TileIndex, left_scale: TileIndex,
                   right: TileIndex, right_scale: TileIndex, bias: TileIndex,
                   left_type: bits(5), use_left_tile_type: boolean, right_type: bits(5),
                   right_type_present: boolean) => boolean
begin
    let saved_operation = _BundleOperation;
    let saved_present = _BundleDataAttributesPresent;
    let saved = _BundleDataAttributes;
    let saved_fixed_point = _BundleFixedPointAttributes;
    var legal = TRUE;
    _BundleDataAttributesPresent = FALSE;
    _BundleFixedPointAttributes.valid = FALSE;
    if right_type_present then
        legal = AVSSetDataAttributes(right_type, Zeros{5}, '00', Zeros{3},
            FALSE, FALSE);
    end;
    InstallBundleOperationDescriptor(BundleOperationDescriptor {
        valid = TRUE,
        form_identity = Zeros{7},
        operation_class = BundleOperation_TileMatrix,
        selector_valid = TRUE,
        selector = Zeros{10} + function,
        data_type_valid = TRUE,
        data_type = if use_left_tile_type then
            TileDataTypeToEncoding(_Tiles[[left]].data_type) else left_type,
        mode_valid = FALSE,
        mode = Zeros{2},
        branch_type_valid = FALSE,
        branch_type = Zeros{3}
    });
    if function == 0 then
        legal = legal && InstructionContractOperandsLegal_TMATMUL(destination, left, right);
        if legal then TMATMUL(destination, left, right); end;
    elsif function == 1 then
        legal = legal && InstructionContractOperandsLegal_TMATMUL_BIAS(destination, left, right, bias);
        if legal then TMATMUL_BIAS(destination, left, right, bias); end;
    elsif function == 2 then
        legal = legal && InstructionContractOperandsLegal_TMATMUL_ACC(destination, accumulator, left, right);
        if legal then TMATMUL_ACC(destination, accumulator, left, right); end;
    elsif function == 4 then
        legal = legal && InstructionContractOperandsLegal_TMATMUL_MX(destination, left, left_scale, right, right_scale);
        if legal then TMATMUL_MX(destination, left, left_scale, right, right_scale); end;
    elsif function == 5 then
        legal = legal && InstructionContractOperandsLegal_TMATMUL_MX_BIAS(destination, left, left_scale, right, right_scale, bias);
        if legal then TMATMUL_MX_BIAS(destination, left, left_scale, right, right_scale, bias); end;
    elsif function == 6 then
        legal = legal && InstructionContractOperandsLegal_TMATMUL_MX_ACC(destination, accumulator, left, left_scale, right, right_scale);
        if legal then TMATMUL_MX_ACC(destination, accumulator, left, left_scale, right, right_scale); end;
    elsif function == 16 then
        legal = legal && InstructionContractOperandsLegal_TGEMV(destination, left, right);
        if legal then TGEMV(destination, left, right); end;
    elsif function == 17 then
        legal = legal && InstructionContractOperandsLegal_TGEMV_BIAS(destination, left, right, bias);
        if legal then TGEMV_BIAS(destination, left, right, bias); end;
    elsif function == 18 then
        legal = legal && InstructionContractOperandsLegal_TGEMV_ACC(destination, accumulator, left, right);
        if legal then TGEMV_ACC(destination, accumulator, left, right); end;
    elsif function == 20 then
        legal = legal && InstructionContractOperandsLegal_TGEMV_MX(destination, left, left_scale, right, right_scale);
        if legal then TGEMV_MX(destination, left, left_scale, right, right_scale); end;
    elsif function == 21 then
        legal = legal && InstructionContractOperandsLegal_TGEMV_MX_BIAS(destination, left, left_scale, right, right_scale, bias);
        if legal then TGEMV_MX_BIAS(destination, left, left_scale, right, right_scale, bias); end;
    else
        legal = FALSE;
    end;
    _BundleOperation = saved_operation;
    _BundleDataAttributesPresent = saved_present;
    _BundleDataAttributes = saved;
    _BundleFixedPointAttributes = saved_fixed_point;
    return legal || AVSDirectRejected(step);
end;

// TSORT and TMRGSORT: contracts with a ranged width and a boolean direction.
func AVSDirectTSORT(step: integer, destination: TileIndex,
                    destination_indices: TileIndex, source: TileIndex,
                    sort_width: integer {1..64}, descending: boolean) => boolean
begin
    if !InstructionContractOperandsLegal_TSORT(destination,
            destination_indices, source, sort_width, descending) then
        return AVSDirectRejected(step);
    end;
    InstructionContractExecute_TSORT(destination, destination_indices, source,
        sort_width, descending);
    return TRUE;
end;

func AVSDirectTMRGSORT(step: integer, destination: TileIndex,
                       source_left: TileIndex, source_right: TileIndex,
                       descending: boolean) => boolean
begin
    if !InstructionContractOperandsLegal_TMRGSORT(destination, source_left,
            source_right, descending) then
        return AVSDirectRejected(step);
    end;
    InstructionContractExecute_TMRGSORT(destination, source_left, source_right,
        descending);
    return TRUE;
end;

// TCI, TTRI, THISTOGRAM and TDEQUANT: contracts with a boolean flag, a ranged
// integer or a numeric control, which the generic contract call cannot pass.
func AVSDirectTCI(step: integer, destination: TileIndex, start: Word,
                  descending: boolean) => boolean
begin
    if !InstructionContractOperandsLegal_TCI(destination, start, descending) then
        return AVSDirectRejected(step);
    end;
    InstructionContractExecute_TCI(destination, start, descending);
    return TRUE;
end;

func AVSDirectTTRI(step: integer, destination: TileIndex, upper: boolean,
                   diagonal: integer {-65535..65535}) => boolean
begin
    if !InstructionContractOperandsLegal_TTRI(destination, upper, diagonal) then
        return AVSDirectRejected(step);
    end;
    InstructionContractExecute_TTRI(destination, upper, diagonal);
    return TRUE;
end;

func AVSDirectTHISTOGRAM(step: integer, destination: TileIndex,
                         source: TileIndex, filter: TileIndex,
                         selected_byte: integer {0..3}) => boolean
begin
    if !InstructionContractOperandsLegal_THISTOGRAM(destination, source,
            filter, selected_byte) then
        return AVSDirectRejected(step);
    end;
    InstructionContractExecute_THISTOGRAM(destination, source, filter,
        selected_byte);
    return TRUE;
end;

func AVSDirectTDEQUANT(step: integer, destination: TileIndex,
                       source: TileIndex, multiplier: Word, zero_point: Word,
                       rounding: NumericRoundingMode,
                       saturating: boolean) => boolean
begin
    let control = AVSControl(rounding, saturating);
    if !InstructionContractOperandsLegal_TDEQUANT(destination, source,
            multiplier, zero_point, control) then
        return AVSDirectRejected(step);
    end;
    InstructionContractExecute_TDEQUANT(destination, source, multiplier,
        zero_point, control);
    return TRUE;
end;

// --- observation -------------------------------------------------------------

// A predicate tile: per row, each coordinate's logical index, definedness and
// bit (TilePredicateBitFromInfo), then one B line with every payload byte
// (ReadTilePredicateByte), ceil(rows*columns/8) of them.
func AVSObservePredicate(index: TileIndex)
begin
    let tile = _Tiles[[index]];
    for row = 0 to tile.rows - 1 do
        print "R";
        for column = 0 to tile.columns - 1 do
            let logical = TilePredicateLogicalIndex(tile,
                row as integer {0..65535}, column as integer {0..65535});
            print " ", logical, ":",
                if tile.defined_elements[logical] == '1' then 1 else 0, ":",
                if TilePredicateBitFromInfo(tile, row as integer {0..65535},
                    column as integer {0..65535}) then 1 else 0;
        end;
        println "";
    end;
    print "B";
    for byte_index = 0 to PredicateTileStorageBytes(tile.rows, tile.columns) - 1 do
        print " ", UInt(ReadTilePredicateByte(index,
            byte_index as integer {0..2047}));
    end;
    println "";
end;

// A: the fault address (_FaultAddress; the comparator reads it for a data
// fault only).
func AVSObserveFaultAddress()
begin
    println "A ", UInt(_FaultAddress);
end;

// M: every byte of memory (decimal), address 0 first, read with the spec's
// ReadMemoryByte.
func AVSObserveMemory()
begin
    print "M ", PTO_MODEL_MEMORY_BYTES;
    for address = 0 to PTO_MODEL_MEMORY_BYTES - 1 do
        print " ", UInt(ReadMemoryByte(Zeros{PTO_XLEN} + address));
    end;
    println "";
end;

// E: one line per captured memory event, in order: kind, agent, address,
// size, value read, value written, order.
func AVSObserveEvents()
begin
    println "V ", _MemoryEventCount;
    for index = 0 to _MemoryEventCount - 1 do
        let event = _MemoryEvents[[index as MemoryEventIndex]];
        println "E ", event.kind, " ", event.agent, " ", UInt(event.address),
            " ", event.size_bytes, " ", UInt(event.read_value), " ",
            UInt(event.write_value), " ", event.order;
    end;
end;

// G, then S: per shared tile register with a valid descriptor, its descriptor (as a
// T line, the allocation mask last, then the initialized mask), then one R
// line per row: storage index, definedness (an element of an initialized
// quarter that the record defines) and the Word ReadSharedTileWord reads.
func AVSObserveSharedTiles()
begin
    println "G";
    for index = 0 to PTO_SHARED_TILE_COUNT - 1 do
        let shared = _SharedTiles[[index]];
        if shared.descriptor_valid then
            let tile = shared.tile;
            println "S ", index, " ", tile.storage_kind, " ", tile.data_type,
                " ", tile.layout, " ", tile.location, " ", tile.rows, " ",
                tile.columns, " ", tile.valid_rows, " ", tile.valid_columns,
                " ", tile.capacity_bytes, " ", UInt(shared.allocation_mask),
                " ", UInt(shared.initialized_mask);
            for row = 0 to tile.rows - 1 do
                print "R";
                for column = 0 to tile.columns - 1 do
                    let element = TileLogicalLinearIndex(tile,
                        row as integer {0..65535},
                        column as integer {0..65535});
                    let region = SharedTileElementRegion(tile, element);
                    let initialized = shared.initialized_mask[
                        PTOPEMaskBitOfPEIdentity(region)] == '1';
                    print " ", element, ":",
                        if initialized && TileLogicalElementDefined(tile, element)
                            then 1 else 0,
                        ":", UInt(ReadSharedTileWord(Zeros{8} + index, element));
                end;
                println "";
            end;
        end;
    end;
end;

// F: last fault; N: NumericStatus; U: capacity in use; per allocated tile a T
// line (descriptor) and one R line per row: storage index, definedness and
// Word of every coordinate, read through the spec's logical-element functions
// (a predicate tile: AVSObservePredicate).
func AVSObserve()
begin
    println "F ", _LastFault;
    println "N ", UInt(NumericStatusFlags());
    println "U ", TileCapacityInUse();
    for index = 0 to PTO_TILE_REGISTER_COUNT - 1 do
        let tile = _Tiles[[index]];
        if tile.allocated then
            println "T ", index, " ", tile.storage_kind, " ", tile.data_type,
                " ", tile.layout, " ", tile.location, " ", tile.rows, " ",
                tile.columns, " ", tile.valid_rows, " ", tile.valid_columns,
                " ", tile.capacity_bytes, " ",
                UInt(_TileAllocationMasks[[index]]);
            if tile.storage_kind == TileStorage_Predicate then
                AVSObservePredicate(index as TileIndex);
            else
                for row = 0 to tile.rows - 1 do
                    print "R";
                    for column = 0 to tile.columns - 1 do
                        let element = TileLogicalLinearIndex(tile,
                            row as integer {0..65535},
                            column as integer {0..65535});
                        print " ", element, ":",
                            if TileLogicalElementDefined(tile, element) then 1 else 0,
                            ":", UInt(TileReadLogicalElement(tile, element));
                    end;
                    println "";
                end;
            end;
        end;
    end;
end;
